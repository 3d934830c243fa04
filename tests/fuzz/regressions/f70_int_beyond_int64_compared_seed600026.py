import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    ex7 = (n + 2) ** 40 * (k + 1) > 2 ** 64
    s.hist.append(repr(ex7))
    return acc


# ---- janus fuzz case
# found by the v27 generator (rule exact_numbers, weighted), seed 600026, minimized
# before the fix: internal OverflowError (a fed int compared with an int past int64)
FINDING = 'F70'
KIND = 'internal:OverflowError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 25, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 25, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 25, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 25, 'len': 1, 'n': 0, 'flag': True, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float32', 'seed': 25, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 25, 'len': 1, 'n': 1, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
