"""A smoothed loss kept as a Python float (`0.9 * s.smooth + 0.1 * float(loss)`), a
math.isnan check that raises, a tqdm-like postfix string built every call."""
import math

import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 6  # (0 before F459: `math.isnan(value)` of the read was a break)


class State:
    def __init__(self):
        rng = np.random.RandomState(37)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.smooth = None
        self.postfix = ""
        self.seen = 0


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    value = float(loss)
    if math.isnan(value):
        raise FloatingPointError("loss is NaN")
    s.smooth = value if s.smooth is None else 0.9 * s.smooth + 0.1 * value
    s.seen += x.shape[0]
    s.postfix = f"loss={s.smooth:.5f} seen={s.seen}"
    return s.smooth


def calls():
    batches = data.regression(10, seed=38)
    x, y = batches[-1]
    return batches[:-1] + [(x, y * float("nan"))]  # (the last one raises)
