"""Lazy building inside the step: a Keras model with no Input (built by its first call),
an optimizer whose slots appear at its first apply, and a bias variable the step creates
itself the first time (`if s.bias is None`)."""
import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 4


class State:
    def __init__(self):
        keras.utils.set_random_seed(62)
        self.model = keras.Sequential([keras.layers.Dense(8, activation="tanh"),
                                       keras.layers.Dense(1)], name="lazy")
        self.opt = keras.optimizers.Adam(1e-2)
        self.bias = None


def make_state():
    return State()


def step(s, x, y):
    if s.bias is None:
        s.bias = tf.Variable(tf.zeros([1]), name="extra_bias")
    with tf.GradientTape() as tape:
        pred = s.model(x) + s.bias
        loss = tf.reduce_mean(tf.square(pred - y))
    variables = s.model.trainable_variables + [s.bias]
    grads = tape.gradient(loss, variables)
    s.opt.apply_gradients(zip(grads, variables))
    return loss


def calls():
    return data.regression(8, seed=63)
