import functools
import math

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


class Item8:
    def __init__(self, w, c):
        self.w = w
        self.c = c


ITEMS9 = [Item8(2, 0.5), Item8(0, 0.0), Item8(4, 1.0), Item8(2, 0.5)]


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])


def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    assert n != 4, ('bad n', n)
    rw2, ct3 = [], []
    for ei1 in range(n + 3):
        v6 = float(tf.reduce_sum(tf.cast(x, tf.float64)))
        r4 = v6 + 0.25 * ei1
        rw2.append(r4)
        c7 = int(tf.argmax(tf.reshape(tf.cast(x, tf.float32), [-1])))
        ct3.append(c7 + ei1)
        if tf.reduce_sum(acc) > ei1:
            break
    s.hist.append(repr(sum(rw2)) + repr(sum(ct3)))
    ret5 = np.array(rw2, dtype=np.float64)
    ret5 = (ret5 - ret5.mean()) / (ret5.std() + 1e-7)
    s.hist.append(repr(ret5.sum()) + repr(sum(rw2, -1e-300)))
    acc = acc + tf.cast(tf.reduce_sum(ret5), acc.dtype) * 0.01
    for it10 in ITEMS9:
        acc = acc * (1.0 + it10.c)
        acc = acc - float(it10.w) * 0.05
        if it10.w > 2:
            acc = acc * 0.9
        else:
            acc = acc + 0.1
    for j11, it10 in enumerate(ITEMS9):
        it10.w = (it10.w * 3 + j11 + n) % 5
        it10.c = it10.c * 0.5 + 0.25
    t12 = tf.sin(acc) * 0.9 * G_SCALE
    for ti13 in tf.range(tf.shape(x)[0]):
        acc = acc + tf.cast(ti13, acc.dtype) * 0.1
        k += 1
    print('p', k, n, len(s.hist))
    return (acc, s.count)


# ---- janus fuzz case
# seed 470008 (generator v47, plain mode: JANUS_FUZZ_PLAIN=1), 30 calls; not minimized:
# the item attributes a loop reads change on every call (each call needs another graph);
# janus generated 22 graphs for 30 calls (16 s) until it stopped making graphs no call reused
FINDING = 'F139'
KIND = 'timeout'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float32', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float32', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float64', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float64', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float64', 'seed': 77, 'len': 0, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float64', 'seed': 77, 'len': 3, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float64', 'seed': 77, 'len': 3, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [5], 'dtype': 'float32', 'seed': 77, 'len': 3, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 77, 'len': 3, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 77, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 77, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [1], 'dtype': 'float32', 'seed': 77, 'len': 1, 'n': 3, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 77, 'len': 1, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 77, 'len': 1, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 1, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 1, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 1, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 1, 'n': 2, 'flag': False, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 1, 'n': 2, 'flag': False, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 1, 'n': 2, 'flag': False, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 2, 'n': 2, 'flag': False, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 2, 'n': 2, 'flag': False, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 2, 'n': 2, 'flag': False, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 72, 'len': 2, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 55, 'len': 2, 'n': 2, 'flag': True, 'obj': 'alt'},
 {'shape': [1], 'dtype': 'float32', 'seed': 55, 'len': 2, 'n': 2, 'flag': True, 'obj': 'alt'}]
SLOW = "14 s idle: five generations"

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
