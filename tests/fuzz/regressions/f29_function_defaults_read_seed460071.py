import contextlib

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
G_LIST = []
V0 = tf.Variable(0.5)
VEC = tf.Variable(tf.zeros([4]))


def vh(a, seen=[]):
    seen.append(len(seen))
    return a + float(len(seen))


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


def f(s, x, xs, n, flag):
    acc = vh(x * 0.5)
    k = len(vh.__defaults__[0]) % 3
    with tf.GradientTape() as tape:
        tape.watch(acc)
        y = tf.reduce_sum(tf.tanh(acc) * x)
    return acc, k


# ---- janus fuzz case
# seed 460071 (generator v15): attributes of a function (its __defaults__) and of classes were read unguarded
FINDING = 'F29'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 5, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 7, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 8, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 8, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 9, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 9, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 10, 'len': 1, 'n': 2, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
