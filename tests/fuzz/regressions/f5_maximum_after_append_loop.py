import tensorflow as tf

class State:
    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    xs.append(acc)
    for item in xs:
        acc = tf.maximum(x, x * 1.5)
    return acc


# ---- janus fuzz case
# from seed 109 (generator v1), minimized by hand
FINDING = 'F5'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 63, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 63, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 63, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
