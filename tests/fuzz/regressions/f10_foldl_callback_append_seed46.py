import numpy as np
import tensorflow as tf

class State:

    def __init__(self):
        self.hist = []

def f(s, x, xs, n, flag):
    acc = x * 0.5 + tf.tanh(x)

    def cb3(a, e):
        s.hist.append(len(s.hist))
        return a * 0.5 + e
    flat4 = tf.reshape(acc, [-1])
    acc = acc + tf.foldl(cb3, flat4)
    return acc


# ---- janus fuzz case
# seed 46 (generator v3), minimized by hand from the minimizer output (which dropped the return)
# original: heap: s.hist length plain 6, janus 5 (call #2, the first graph call)
FINDING = 'F10'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 40, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 40, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 40, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 40, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
