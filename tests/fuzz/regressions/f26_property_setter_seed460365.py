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

    @property
    def level(self):
        return self.count

    @level.setter
    def level(self, v):
        self.count = v
        self.hist.append(v)


def f(s, x, xs, n, flag):
    acc = x * 0.5
    s.level = s.level + 1
    if s.level > 2:
        acc = acc * 0.5
        s.level = 0
    print('p', s.level)
    return acc


# ---- janus fuzz case
# seed 460365 (generator v15): a property's getter/setter ran as plain Python while tracing (stale reads, writes once)
FINDING = 'F26'
KIND = 'heap'
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
