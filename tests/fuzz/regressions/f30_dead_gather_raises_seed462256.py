import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
V1 = tf.Variable(0.5)


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


def f(s, x, xs, n, flag):
    acc = x * 0.5
    try:
        s.count = s.count + 1
        acc = acc + tf.reduce_sum(tf.gather(tf.reshape(x, [-1]), [2])) * 0.1
        acc = tf.tanh(x) * 0.5
    finally:
        s.count += 1
    V1.assign_add(tf.reduce_mean(acc) * 0.1)
    return acc


# ---- janus fuzz case
# seed 462256 (generator v15): an out-of-range tf.gather whose result was overwritten
# raised eagerly; TF pruned it from the graph (then: the variable was committed before it failed)
FINDING = 'F30'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 27, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
