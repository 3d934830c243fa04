"""Skip the update when gradients are not finite (a tensor `if` around apply_gradients),
two optimizers for two parameter groups, `zip(*pairs)` unpacking, an EMA of the loss in a
tf.Variable."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 15


class State:
    def __init__(self):
        self.body = tf.Variable(tf.ones([3, 3]) * 0.2)
        self.head = tf.Variable(tf.ones([3, 1]) * 0.1)
        self.opts = [keras.optimizers.SGD(0.05), keras.optimizers.Adam(0.01)]
        self.ema = tf.Variable(0.0)
        self.skipped = tf.Variable(0, dtype=tf.int32)


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(5, 3).astype(np.float32)
    if i % 6 == 5:
        x[1, 2] = np.inf
    return (tf.constant(x), tf.constant(rng.randn(5, 1), tf.float32))


@JIT
def step(s, x, y):
    groups = [[s.body], [s.head]]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.nn.relu(x @ s.body) @ s.head - y))
    grads = tape.gradient(loss, [v for g in groups for v in g])
    finite = tf.reduce_all([tf.reduce_all(tf.math.is_finite(g)) for g in grads])
    if finite:
        pairs = list(zip(grads, [v for g in groups for v in g]))
        for opt, (g, v) in zip(s.opts, pairs):
            opt.apply_gradients([(g, v)])
        s.ema.assign(0.9 * s.ema + 0.1 * loss)
    else:
        s.skipped.assign_add(1)
    gs, vs = zip(*[(g, v) for g, v in zip(grads, [s.body, s.head])])
    return loss, len(gs), s.skipped.read_value()


STEP = step
