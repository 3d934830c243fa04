import contextlib

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
G_LIST = []
V0 = tf.Variable(0.5)
VEC = tf.Variable(tf.zeros([4]))


class Scope:
    def __init__(self, s, tag):
        self.s = s
        self.tag = tag

    def __enter__(self):
        self.s.hist.append(self.tag)
        return self

    def __exit__(self, typ, value, tb):
        self.s.count += 1
        return False


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


def f(s, x, xs, n, flag):
    acc = x * 0.5
    with Scope(s, n):
        acc = tf.tanh(acc) + 1.0
    return acc


# ---- janus fuzz case
# seed 460007 (generator v15): a user context manager's __enter__/__exit__ ran once, while tracing
FINDING = 'F25'
KIND = 'heap'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
