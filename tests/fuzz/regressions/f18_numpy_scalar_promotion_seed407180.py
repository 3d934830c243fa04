import functools
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
V0 = tf.Variable(0.5)
HOST_RNG = np.random.default_rng(7)

class State:

    def __init__(self):
        self.total = 0.0

def f(s, x, xs, n, flag):
    acc = x * 0.5
    tb2 = x * tf.cast(V0, x.dtype) * tf.cast(V0, x.dtype) * 0.5
    zb1 = HOST_RNG.choice([0.5, 1.0, 2.0], p=[0.2, 0.3, 0.5]) * float(np.sum(tb2.numpy()))
    acc = acc + tb2 * 0.1 + zb1 * 0.01
    s.total = s.total + zb1
    z3 = float(tf.reduce_sum(acc).numpy())
    s.total = s.total + z3
    acc = tf.maximum(x, tf.tanh(acc))


# ---- janus fuzz case
# seed 407180 (generator v8), minimized with every stretch traced
FINDING = 'F18'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 36, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 36, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 36, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 36, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 4, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 4, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
