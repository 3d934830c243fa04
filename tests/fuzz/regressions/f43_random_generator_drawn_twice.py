import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)

class State:

    def __init__(self):
        self.count = 0
RNG = tf.random.Generator.from_seed(7)

def f(s, x, xs, n, flag):
    acc = x * 0.5
    acc = acc + RNG.normal(tf.shape(acc), dtype=acc.dtype) * 0.1
    if tf.reduce_sum(acc) > 0.0:
        pass
    return acc


# ---- janus fuzz case
# found by hand probing the v20 constructs (tf.random.Generator in f), minimized
# before the fix: result at call 5 (the generator drew twice after a failed guard)
FINDING = 'F43'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
