import contextlib

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
G_LIST = []
V0 = tf.Variable(0.5)
VEC = tf.Variable(tf.zeros([4]))


def prep(v):
    if isinstance(v, (list, tuple)):
        return tf.add_n(v) if v else 0.0
    if isinstance(v, tf.Tensor):
        return tf.reduce_mean(v)
    if isinstance(v, (int, float)):
        return float(v) * 0.25
    return 0.0


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


def f(s, x, xs, n, flag):
    acc = x * 0.5
    acc = acc + prep(n if flag else acc) * 0.1
    return acc


# ---- janus fuzz case
# seed 460456 (generator v15): isinstance() of an int janus feeds to the graph was False
FINDING = 'F28'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 4, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 4, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 1, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
