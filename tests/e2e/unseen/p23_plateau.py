"""Reduce-on-plateau by hand: the optimizer's learning_rate variable halved after 2 steps
without improvement, a running-stats dict updated with .get(), logging whenever
`opt.iterations % 3 == 0` (a test on a variable)."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True


class State:
    def __init__(self):
        rng = np.random.RandomState(33)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.opt = tf.keras.optimizers.SGD(0.2)
        self.best = float("inf")
        self.wait = 0
        self.stats = {}


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    s.opt.apply_gradients([(tape.gradient(loss, s.w), s.w)])
    s.stats["loss_sum"] = s.stats.get("loss_sum", 0.0) + loss
    s.stats["n"] = s.stats.get("n", 0) + 1
    if loss < s.best:
        s.best = loss
        s.wait = 0
    else:
        s.wait += 1
        if s.wait >= 2:
            s.opt.learning_rate.assign(s.opt.learning_rate * 0.5)
            s.wait = 0
    if s.opt.iterations % 3 == 0:
        tf.print("iteration", s.opt.iterations, "mean loss", s.stats["loss_sum"] / s.stats["n"])
    return loss


def calls():
    return data.regression(12, seed=34)
