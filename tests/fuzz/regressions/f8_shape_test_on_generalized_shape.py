import tensorflow as tf

class State:
    def __init__(self):
        self.count = 0

def f(s, x, xs, n, flag):
    acc = x * 0.5
    acc = tf.add_n([acc] + [t for t in xs if t.shape == acc.shape])
    return acc


# ---- janus fuzz case
# from seed 20534 (generator v2), minimized by hand
FINDING = 'F8'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 98, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 98, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 98, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 98, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 98, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [2], 'dtype': 'float32', 'seed': 98, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
