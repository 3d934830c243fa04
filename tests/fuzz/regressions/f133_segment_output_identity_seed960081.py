import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_LIST = []

def vh4(a, scale=0.5, *rest, shift=None, **opts):
    return a * scale + len(opts)
DENSE_R = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.2), activity_regularizer=tf.keras.regularizers.L2(0.1))

def summary3(a):
    return tf.reshape(tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a)]), [1, 3])

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    for a1, b2 in zip(xs, xs[1:]):
        acc = acc + a1 * 0.1 - b2 * 0.1
    b3 = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x, lambda: acc)
    if b3 is x:
        k += 1
    return (k, len(out))


# ---- janus fuzz case
# F133: identity of a segment graph's output through the user's tf.cond, tested in Python after the segment (seed 960081, generator v44), minimized
# original: result[0]: plain ('int', 1), janus ('int', 0)
# minimized: result: result[0]: plain ('int', 1), janus ('int', 0)
FINDING = 'F133'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'new'},
 {'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'new'},
 {'shape': [3], 'dtype': 'float32', 'seed': 88, 'len': 0, 'n': 0, 'flag': False, 'obj': 'new'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
