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


@tf.function
def tstep(a, c):
    return a * c + 1.0


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
    for item1 in xs:
        acc = x
        ex2 = (n * 3 + 7) ** 25 % (k + 11)
        s.hist.append(repr(ex2))
    V0.assign(tf.reduce_mean(tf.cast(acc, tf.float32)))
    with tf.GradientTape() as tape3:
        tape3.watch(acc)
        y4 = tf.reduce_sum(tf.cast(acc, tf.float32) * V0 * V0)
    gv5, ga6 = tape3.gradient(y4, [V0, acc])
    if gv5 is not None:
        V0.assign_sub(0.01 * gv5)
    if ga6 is not None:
        acc = acc + 0.1 * ga6
    nv7 = tf.reduce_max(acc).numpy()
    nw8 = abs(nv7) / 7.0
    s.hist.append(repr(nw8) + type(nw8).__name__)
    acc = tstep(x * 0.5 + acc, tf.cast(V0, acc.dtype))
    return (acc, k)


# ---- janus fuzz case
# fuzz v34 seed 32: a user tf.function (tstep) called in janus's graph with a variable's
# deferred value cached a graph of its own reading janus's trace; janus's next graph
# (and the user's calls of tstep) failed 'out of scope'
FINDING = 'F75'
KIND = 'internal:TypeError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 35, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 35, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 35, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 35, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 35,
  'len': 0,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 35,
  'len': 0,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 35,
  'len': 1,
  'n': 3,
  'flag': False,
  'obj': 'main'},
 {'shape': [2, 3],
  'dtype': 'float32',
  'seed': 35,
  'len': 1,
  'n': 3,
  'flag': False,
  'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
