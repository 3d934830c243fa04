import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

def prep(v):
    return 0.0

class State:

    def __init__(self):
        pass

    @JIT
    def jm1(self, t):
        self.count += 1
        self.hist.append(len(self.hist))
        if self.count > 3:
            self.total = self.total + 0.5
            self.h = tf.reduce_sum(t)
        return t * 0.9 + self.total * 0.1

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    bv8 = acc * 0.5 + s.jm1(acc) if k % 2 == 1 else acc * 0.5
    lr9 = n + 1
    acc = acc + tf.reduce_sum(tf.cast(tf.constant([lr9, 0.5]), acc.dtype))


# ---- janus fuzz case
# seed 2910137 (generator v71), minimized
# original: TypeError: Value passed to parameter 'x' has DataType int64 not in list of allowed values: bfloat16, float16, float32, float64
# minimized: internal:TypeError: TypeError: Value passed to parameter 'x' has DataType int64 not in list of allowed values: bfloat16, float16, float32, float64
FINDING = 'F178'
KIND = 'internal:TypeError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 65, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 65, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 65, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 65, 'len': 1, 'n': 4, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
