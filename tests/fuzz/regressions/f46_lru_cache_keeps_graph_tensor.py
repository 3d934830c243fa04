import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)  # the fuzzer sets janus.jit on the janus side

G_LIST = []
G_DICT = {}
G_SCALE = 1.5
G_COUNT = 0
ENV = {"scale": 2.0}
V0 = tf.Variable(0.5)
V1 = tf.Variable(tf.zeros([]))


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


@functools.lru_cache(maxsize=None)
def table(m):
    return tf.constant(float(m) + 1.0)

def f(s, x, xs, n, flag):
    acc = x * 0.5
    acc = acc * tf.cast(table(n), acc.dtype)
    return acc


# ---- janus fuzz case
# found probing the v20 constructs: a functools.lru_cache helper returning a tensor
# before the fix: internal:TypeError at call 7 (a cached tensor of a graph out of scope)
FINDING = 'F46'
KIND = 'internal:TypeError'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 1, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 4, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 4, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 72, 'len': 0, 'n': 4, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 89, 'len': 0, 'n': 4, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
