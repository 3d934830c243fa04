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


DS = tf.data.Dataset.from_tensor_slices(tf.range(5, dtype=tf.float32)).batch(2)

def f(s, x, xs, n, flag):
    acc = x * 0.5
    for b in DS.take(n % 3 + 1):
        acc = acc + tf.cast(tf.reduce_sum(b), acc.dtype) * 0.1
        s.count += 1
    return acc


# ---- janus fuzz case
# found by hand probing the v20 constructs (a tf.data loop in f)
# before the fix: internal:ValueError at call 2 (an unusually high number of get_next() calls)
FINDING = 'F44'
KIND = 'internal:ValueError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 1, 'n': 0, 'flag': True, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 1, 'n': 0, 'flag': True, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 2, 'n': 0, 'flag': True, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 2, 'n': 0, 'flag': True, 'obj': 'new'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 97, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float64', 'seed': 97, 'len': 2, 'n': 0, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
