"""Helpers wrapped in `@tf.function`, one with an input_signature and one without (called
with a Python float that changes, so it retraces), and a tf.function method of a
tf.Module."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 5


@tf.function(input_signature=[tf.TensorSpec([None, 1], tf.float32),
                              tf.TensorSpec([None, 1], tf.float32)])
def mse(pred, y):
    return tf.reduce_mean(tf.square(pred - y))


@tf.function
def l2(w, scale):
    return scale * tf.reduce_sum(w * w)


class Linear(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(40)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.b = tf.Variable(tf.zeros([1]))

    @tf.function
    def __call__(self, x):
        return x @ self.w + self.b


class State:
    def __init__(self):
        self.model = Linear()
        self.steps = 0


def make_state():
    return State()


def step(s, x, y, decay):
    with tf.GradientTape() as tape:
        loss = mse(s.model(x), y) + l2(s.model.w, decay)
    grads = tape.gradient(loss, s.model.trainable_variables)
    for g, v in zip(grads, s.model.trainable_variables):
        v.assign_sub(0.05 * g)
    s.steps += 1
    return loss


def calls():
    return [(x, y, 1e-3 if i < 6 else 1e-2) for i, (x, y) in enumerate(data.regression(10, seed=41))]
