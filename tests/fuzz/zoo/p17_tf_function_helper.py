"""tf.function-decorated helpers (a loss, a gradient step with a Python side effect at
trace time) called from the jitted step."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
TRACES = []


@tf.function
def huber(y, pred, delta=1.0):
    err = tf.abs(y - pred)
    quad = tf.minimum(err, delta)
    return tf.reduce_mean(0.5 * quad ** 2 + delta * (err - quad))


@tf.function(reduce_retracing=True)
def apply(w, g, lr):
    TRACES.append(1)
    w.assign_sub(lr * g)
    return tf.norm(g)


class State:
    def __init__(self):
        self.w = tf.Variable([[0.3], [-0.2], [0.1]])
        self.norms = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 4 + (i // 5)
    return (tf.constant(rng.randn(n, 3), tf.float32), tf.constant(rng.randn(n, 1) * 3, tf.float32),
            0.1 if i < 8 else 0.05)


@JIT
def step(s, x, y, lr):
    with tf.GradientTape() as tape:
        loss = huber(y, x @ s.w)
    norm = apply(s.w, tape.gradient(loss, s.w), tf.constant(lr))
    s.norms.append(norm)
    return loss


STEP = step
