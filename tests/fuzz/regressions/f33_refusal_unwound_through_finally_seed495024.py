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


def prep(v):
    if isinstance(v, (list, tuple)):
        return tf.add_n(v) if v else 0.0
    if isinstance(v, dict):
        return len(v) * 0.5
    if isinstance(v, tf.Tensor):
        return tf.reduce_mean(v)
    if isinstance(v, bool):
        return 2.0 if v else -1.0
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

    @JIT
    def jm2(self, t):
        self.count += 1
        self.hist.append(len(self.hist))
        if self.count > 3:
            self.total = self.total + 0.5
            self.h = tf.reduce_sum(t)
        return t * 0.9 + self.total * 0.1


def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    acc = acc + tf.cast(s.h, acc.dtype)
    acc = acc + prep(G_SCALE) * 0.1
    s.count += 1
    print(len(out), flag)
    t1 = tf.sin(acc) * 0.9
    try:
        s.count = s.count + len(xs)
        acc = acc + tf.reduce_sum(tf.gather(tf.reshape(x, [-1]), [k % 4])) * 0.1
        acc = s.jm2(tf.tanh(s.jm2(acc)))
    finally:
        s.total = s.total + 0.25
    if out:
        out.pop()
    return [acc, x]


# ---- janus fuzz case
# seed 495024 (generator v17): a refusal inside a tf.cond branch of a jitted method, unwound through the user's finally, which read the branch value: an InaccessibleTensorError reported as janus internal error
FINDING = 'F33'
KIND = 'internal'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'alt'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'alt'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 90, 'len': 1, 'n': 3, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
