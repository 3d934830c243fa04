import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_SCALE = 1.5
G_COUNT = 0
V0 = tf.Variable(0.5)
RNG = tf.random.Generator.from_seed(11)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []

    def inner1(z):
        return z * 0.5 + x
    grown3 = []
    h4 = acc
    for ei2 in xs:
        h4 = h4 * 0.7 + tf.cast(V0, h4.dtype)
        if tf.reduce_max(h4) < 0.5 or not (xs[3] is None and tf.reduce_max(h4) < 0.5):
            break
        if G_COUNT > 2:
            break
        grown3.append(h4)


# ---- janus fuzz case
# seed 609179 (generator v31), minimized
# original: plain raised IndexError: list index out of range; janus returned
# minimized: missing-raise: plain raised IndexError: list index out of range; janus returned
FINDING = 'F74'
KIND = 'missing-raise'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float64', 'seed': 7, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float64', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float64', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
