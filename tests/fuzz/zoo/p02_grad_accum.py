"""Gradient accumulation over micro-batches in a Python list, applied every 3 calls with
tf.clip_by_global_norm; the global norm kept in a Python list."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class State:
    def __init__(self):
        self.w = tf.Variable(tf.random.normal([4, 2], seed=1), name="w")
        self.b = tf.Variable(tf.zeros([2]), name="b")
        self.opt = tf.keras.optimizers.SGD(0.1)
        self.accum = None
        self.micro = 0
        self.norms = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(6, 4), tf.float32), tf.constant(rng.randn(6, 2), tf.float32))


@JIT
def step(s, x, y):
    variables = [s.w, s.b]
    with tf.GradientTape() as tape:
        pred = tf.matmul(x, s.w) + s.b
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, variables)
    if s.accum is None:
        s.accum = [tf.zeros_like(v) for v in variables]
    s.accum = [a + g for a, g in zip(s.accum, grads)]
    s.micro += 1
    if s.micro == 3:
        clipped, norm = tf.clip_by_global_norm([a / 3.0 for a in s.accum], 0.5)
        s.opt.apply_gradients(zip(clipped, variables))
        s.norms.append(norm)
        s.accum = None
        s.micro = 0
    return loss


STEP = step
