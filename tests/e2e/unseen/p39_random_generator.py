"""Randomness in the step: a `tf.random.Generator` (from a seed) for input noise,
stateless random ops seeded by the step counter for a mask, and `tf.random.uniform`
with an op seed."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 3


class State:
    def __init__(self):
        rng = np.random.RandomState(48)
        self.gen = tf.random.Generator.from_seed(5)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.step = 0


def make_state():
    return State()


def step(s, x, y):
    noise = s.gen.normal(tf.shape(x), stddev=0.05)
    mask = tf.random.stateless_uniform(tf.shape(x), seed=[s.step, 7]) > 0.2
    xn = tf.where(mask, x + noise, 0.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(xn @ s.w - y))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    s.step += 1
    return loss


def calls():
    return data.regression(8, seed=49)


def observe(s):
    return s.gen.state.numpy().tolist()
