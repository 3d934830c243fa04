"""Nested structures through tf.nest: a (features, (labels, weights)) tuple batch, a
namedtuple of losses, map_structure over gradients (weight decay), and flattening a
dict of variables kept in a Python dict."""
import collections

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
Losses = collections.namedtuple("Losses", ["data", "reg", "total"])


class State:
    def __init__(self):
        self.params = {"dense": {"w": tf.Variable(tf.ones([3, 2]) * 0.1), "b": tf.Variable(tf.zeros([2]))},
                       "scale": tf.Variable(1.0)}
        self.history = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 5
    return ((tf.constant(rng.randn(n, 3), tf.float32),
             (tf.constant(rng.randn(n, 2), tf.float32), tf.constant(rng.rand(n), tf.float32))),)


def forward(params, x):
    return (tf.matmul(x, params["dense"]["w"]) + params["dense"]["b"]) * params["scale"]


@JIT
def step(s, batch):
    x, (y, w) = batch
    flat = tf.nest.flatten(s.params)
    with tf.GradientTape() as tape:
        pred = forward(s.params, x)
        data = tf.reduce_sum(w[:, None] * (pred - y) ** 2) / tf.reduce_sum(w)
        reg = tf.add_n([tf.reduce_sum(v ** 2) for v in flat]) * 1e-3
        losses = Losses(data, reg, data + reg)
    grads = tape.gradient(losses.total, s.params)
    grads = tf.nest.map_structure(lambda g, v: g + 1e-4 * v, grads, s.params)
    for v, g in zip(flat, tf.nest.flatten(grads)):
        v.assign_sub(0.05 * g)
    s.history.append(losses._replace(total=None))
    return losses


STEP = step
