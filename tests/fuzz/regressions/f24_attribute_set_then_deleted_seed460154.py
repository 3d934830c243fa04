import contextlib

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
G_LIST = []
V0 = tf.Variable(0.5)
VEC = tf.Variable(tf.zeros([4]))


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


def f(s, x, xs, n, flag):
    acc = x * 0.5
    s.mark = getattr(s, 'mark', 0) + 1
    if s.mark > 2:
        del s.mark
        acc = acc * 0.5
    return acc


# ---- janus fuzz case
# seed 460154 (generator v15): set, then del, an attribute in one call: the write-back deleted a missing one; getattr(..., default) was folded in
FINDING = 'F24'
KIND = 'internal:AttributeError'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 3, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
