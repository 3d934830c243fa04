import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
V0 = tf.Variable(0.5)
V1 = tf.Variable(tf.zeros([]))

class MNet:

    def __call__(self, a):
        return a + 1.0

def _m_alt(self, a):
    pass

def _m_call(self, a):
    return a * 3.0
MCALLS = [MNet.__call__, _m_call]
MNET, MOTHER = (MNet(), MNet())

class State:

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])

    def step1(self, t):
        self.count += 1
        self.hist.append(self.count)
        if self.count > 2:
            self.total = self.total + 1.0
        return t * 0.9 + 0.1

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    acc = s.step1(x)
    if len(xs) > 0:
        MNet.__call__ = MCALLS[n % 2]
    acc = MNET(acc)
    ids2 = s.d.get('ids2')
    if ids2 is None:
        ids2 = [(j, 2 * j - 1) for j in range(n + len(xs) + int(flag) + 1)]
    for v3 in ids2:
        acc = acc + 0.1 * tf.reduce_sum(tf.cast(tf.constant(v3), acc.dtype))
    s.d['ids2'] = [(j, 2 * j - 1) for j in range(n + len(xs) + int(flag) + 1)]
    for i4 in range(2):
        with tf.GradientTape() as tape5:
            y6 = tf.reduce_sum(tf.cast(acc, tf.float32) * V0) + V1 * float(i4 + 1)
        g7 = tape5.gradient(y6, [V0, V1])
        V0.assign_sub(0.01 * g7[0])
        s.hist.append(round(float(y6), 3))
        if tf.reduce_sum(tf.cast(x, tf.float32)) * V0 > 0.0:
            break
    opt8 = None
    if tf.reduce_mean(x) > 0.0:
        opt8 = x
    acc = acc if opt8 is None else acc + opt8 * 0.5
    s.last = opt8
    return {'acc': acc, 'k': k}


# ---- janus fuzz case
# seed 77 (generator v74), minimized
# original: result['acc']: plain array([6.355737, 4.533554, 5.486365], dtype=float32), janus array([7.298828 , 3.1338384, 5.311691 ], dtype=float32)
# minimized: result: result['acc']: plain array([6.355737, 4.533554, 5.486365], dtype=float32), janus array([7.298828 , 3.1338384, 5.311691 ], dtype=float32)
FINDING = 'F257'
KIND = 'result'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 56, 'len': 2, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 56, 'len': 2, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 56, 'len': 2, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 56, 'len': 2, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 56, 'len': 2, 'n': 4, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
