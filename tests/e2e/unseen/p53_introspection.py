"""A logging helper that asks what it got: `hasattr(v, "numpy")`, `isinstance(v,
tf.Tensor)`, `tf.is_tensor`, `type(v).__name__`; and `tf.executing_eagerly()` guarding a
debug print."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (a helper's `.numpy()` janus cannot keep: a break at the calling line; the rest runs as segments since F485)


def to_number(v):
    if hasattr(v, "numpy"):
        v = v.numpy()
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        return float(v)
    return v


class State:
    def __init__(self):
        rng = np.random.RandomState(78)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.kinds = []
        self.log = []


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.05 * g)
    s.kinds.append((isinstance(loss, tf.Tensor), tf.is_tensor(g), isinstance(s.w, tf.Variable)))
    if tf.executing_eagerly():
        s.log.append("eager")
    s.log.append(round(to_number(loss), 5))
    return loss


def calls():
    return data.regression(8, seed=79)
