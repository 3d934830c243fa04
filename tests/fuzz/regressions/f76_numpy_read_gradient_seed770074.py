import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_SCALE = 1.5
V0 = tf.Variable(0.5)
V1 = tf.Variable(tf.zeros([]))
MEAN = tf.keras.metrics.Mean()

class Walk1:

    def __init__(self):
        self.state = np.array([0.01, -0.02])

    def step(self, push):
        pass
WALK_2 = Walk1()

class State:

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.hist = []
        self.d = {}
        self.h = tf.zeros([])

    @JIT
    def run(self, x, xs, n, flag):
        return f(self, x, xs, n, flag)
ENTRY = 'method'

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    wo4 = WALK_2.state.astype(np.float32)
    wrs7 = []
    c8 = 1 if flag else 1.5
    with tf.GradientTape() as tape9:
        y10 = tf.reduce_sum(tf.cast(acc, tf.float32) * V0) + V1
        zb11 = float(y10.numpy())
        y10 = y10 * zb11 * 0.1 + tf.reduce_sum(tf.sin(tf.cast(x, tf.float32))) * V0
    g12 = tape9.gradient(y10, [V0, V1])
    V0.assign_sub(0.01 * g12[0])
    j13 = 0


# ---- janus fuzz case
# seed 770074 (generator v36), minimized
# original: heap['globals']['V0'] (variable): plain array(0.49394852, dtype=float32), janus array(0.49384785, dtype=float32)
# minimized: variables: heap['globals']['V0'] (variable): plain array(0.49470994, dtype=float32), janus array(0.4946424, dtype=float32)
FINDING = 'F76'
KIND = 'variables'
XFAIL = None
CALLS = [{'shape': [3], 'dtype': 'float32', 'seed': 76, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 76, 'len': 1, 'n': 0, 'flag': True, 'obj': 'main'},
 {'shape': [3], 'dtype': 'float32', 'seed': 0, 'len': 3, 'n': 0, 'flag': True, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
