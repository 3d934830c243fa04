"""A `@tf.custom_gradient` clipped op, a persistent tape asked twice (then deleted), a
watched input tensor for an input-gradient penalty, `tf.stop_gradient` on a target."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 3


@tf.custom_gradient
def clip_grad(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.1, 0.1)
    return tf.identity(x), grad


class State:
    def __init__(self):
        rng = np.random.RandomState(72)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.v = tf.Variable(rng.randn(4, 1).astype(np.float32))


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        pred = clip_grad(x @ s.w)
        target = tf.stop_gradient(x @ s.v)
        loss = tf.reduce_mean(tf.square(pred - y)) + 0.1 * tf.reduce_mean(tf.square(pred - target))
        aux = tf.reduce_mean(tf.square(x @ s.v - y))
    gw = tape.gradient(loss, s.w)
    gv = tape.gradient(aux, s.v)
    gx = tape.gradient(loss, x)
    del tape
    s.w.assign_sub(0.1 * gw)
    s.v.assign_sub(0.1 * gv)
    return loss, tf.reduce_mean(tf.abs(gx))


def calls():
    return data.regression(8, seed=73)
