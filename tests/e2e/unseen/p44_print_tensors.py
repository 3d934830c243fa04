"""Logging the way people do it: `print(loss)` of a tensor, an f-string without a format
spec, `tf.print` to stdout, `repr` of a small tensor, `.numpy()` in a print."""
import sys

import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True  # (few: two periodic tests on the step counter, F455, open)


class State:
    def __init__(self):
        rng = np.random.RandomState(60)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.step = 0


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.05 * g)
    s.step += 1
    if s.step % 2 == 0:
        print("loss", loss)
        print(f"step {s.step} grad norm {tf.norm(g)}")
    if s.step % 3 == 0:
        tf.print("tf.print loss:", loss, output_stream=sys.stdout)
        print(repr(tf.round(s.w[:2, 0] * 100)))
    return loss


def calls():
    return data.regression(8, seed=61)
