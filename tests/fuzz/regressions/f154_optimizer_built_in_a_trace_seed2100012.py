import functools
import math
import numpy as np
import tensorflow as tf
JIT = globals().get('JIT', lambda fn: fn)
G_SCALE = 1.5
ENV = {'scale': 2.0}
import keras
G_TABLE = tf.Variable(np.linspace(-1.0, 1.0, 15).reshape(5, 3).astype(np.float32))
G_OPT = keras.optimizers.Adam(0.1)
G_OPT2 = keras.optimizers.RMSprop(0.05)

class RngBox:

    def __init__(self):
        self.rng = np.random.default_rng(31)

    def reset(self, scale):
        self.state = self.rng.uniform(-scale, scale, size=3)
BOX = RngBox()

def cb8(a):
    return (a * ENV['scale']).astype(a.dtype)

class State:

    def __init__(self):
        pass

def f(s, x, xs, n, flag):
    acc = x * 0.5
    k = 0
    out = []
    with tf.GradientTape() as stp1:
        stot2 = tf.zeros([3])
        for sa6 in xs:
            stot2 = stot2 * 0.9 + tf.gather(G_TABLE, tf.cast(tf.reduce_max(sa6) > 0.3, tf.int32) * 2 + 1)
        sloss3 = tf.reduce_sum(tf.square(stot2))
    sgrad4 = stp1.gradient(sloss3, G_TABLE)
    ro7 = BOX.reset(G_SCALE)
    with tf.GradientTape() as stp9:
        stot10 = tf.zeros([3])
        for sa14 in xs:
            stot10 = stot10 * 0.9 + tf.gather(G_TABLE, [tf.cast(tf.reduce_max(sa14) > 0.3, tf.int32) * 2 + 1, 2])[0]
        sloss11 = tf.reduce_sum(tf.square(stot10))
    sgrad12 = stp9.gradient(sloss11, G_TABLE)
    if sgrad12 is not None:
        G_OPT2.apply_gradients([(sgrad12, G_TABLE)])
    c15 = True if n > 1 else 0


# ---- janus fuzz case
# An RMSprop first applied in a trace (a segment): its build marked it built, then its
# first variable refused the trace; the plain rerun raised AttributeError (_velocities).
FINDING = 'F154'
KIND = 'janus-raised:AttributeError'
XFAIL = None
CALLS = [{'shape': [4], 'dtype': 'float32', 'seed': 57, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 57, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 57, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float32', 'seed': 57, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float64', 'seed': 57, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float64', 'seed': 57, 'len': 0, 'n': 3, 'flag': False, 'obj': 'main'},
 {'shape': [4], 'dtype': 'float64', 'seed': 57, 'len': 1, 'n': 3, 'flag': False, 'obj': 'main'}]

if __name__ == "__main__":
    import sys
    sys.path.insert(0, ".")
    from tests.fuzz import cases
    cases.main(__file__)
