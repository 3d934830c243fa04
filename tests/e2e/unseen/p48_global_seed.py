"""Randomness through the global seed: the step calls `tf.random.set_seed(step)` then
draws `tf.random.normal` (no op seed) and `tf.random.uniform(seed=3)` for noise and a
mask, so each call's draws are reproducible."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (draws from the global random stream after tf.random.set_seed: refused by design, a graph's draws differ)


class State:
    def __init__(self):
        rng = np.random.RandomState(68)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.step = 0


def make_state():
    return State()


def step(s, x, y):
    tf.random.set_seed(100 + s.step)
    noise = tf.random.normal(tf.shape(x), stddev=0.1)
    keep = tf.random.uniform(tf.shape(x), seed=3) > 0.3
    xn = tf.where(keep, x + noise, 0.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(xn @ s.w - y))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    s.step += 1
    return loss


def calls():
    return data.regression(8, seed=69)
