"""Guards a researcher adds: `tf.debugging.check_numerics` on the loss (a NaN batch
raises InvalidArgumentError out of the step), `tf.debugging.assert_equal` on shapes,
a Python `assert` on a tensor condition."""
import numpy as np
import tensorflow as tf

GRAPHS = True
MIN_GRAPH_CALLS = 4


class State:
    def __init__(self):
        rng = np.random.RandomState(70)
        self.w = tf.Variable(rng.randn(3, 1).astype(np.float32))
        self.steps = 0


def make_state():
    return State()


def step(s, x, y):
    tf.debugging.assert_equal(tf.shape(x)[0], tf.shape(y)[0], message="batch mismatch")
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
        loss = tf.debugging.check_numerics(loss, "loss")
    g = tape.gradient(loss, s.w)
    assert tf.reduce_all(tf.math.is_finite(g)), "bad gradient"
    s.w.assign_sub(0.05 * g)
    s.steps += 1
    return loss


def calls():
    rng = np.random.RandomState(71)
    out = []
    for i in range(10):
        x = rng.randn(4, 3).astype(np.float32)
        if i == 6:
            x[1, 1] = np.nan
        out.append((tf.constant(x), tf.constant(rng.randn(4, 1).astype(np.float32))))
    return out
