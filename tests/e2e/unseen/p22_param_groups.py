"""Parameter groups the way papers describe them: weight decay on kernels only (by
`"bias" not in v.name`), a learning-rate multiplier per layer from enumerate(layers),
None gradients of an unused head skipped, gradients scaled with tf.nest.map_structure."""
import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True


class Net(keras.Model):
    def __init__(self):
        super().__init__(name="groups_net")
        self.body = keras.layers.Dense(8, activation="relu", name="body")
        self.head = keras.layers.Dense(3, name="head")
        self.aux_head = keras.layers.Dense(2, name="aux_head")  # (unused in this step)

    def call(self, x):
        return self.head(self.body(x))


class State:
    def __init__(self):
        keras.utils.set_random_seed(22)
        self.net = Net()
        self.net(tf.zeros([1, 6]))
        self.net.aux_head.build((None, 8))
        self.lr = 0.05
        self.wd = 1e-3
        self.multipliers = {"body": 0.5, "head": 1.0, "aux_head": 1.0}
        self.skipped = 0


def make_state():
    return State()


def step(s, x, y):
    variables = s.net.trainable_variables
    with tf.GradientTape() as tape:
        logits = s.net(x)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        decay = [tf.nn.l2_loss(v) for v in variables if "bias" not in v.name]
        loss += s.wd * tf.add_n(decay)
    grads = tape.gradient(loss, variables)
    grads = tf.nest.map_structure(lambda g: None if g is None else g * 1.0, grads)
    for i, layer in enumerate([s.net.body, s.net.head, s.net.aux_head]):
        for v in layer.trainable_variables:
            g = grads[[id(u) for u in variables].index(id(v))]
            if g is None:
                s.skipped += 1
                continue
            v.assign_sub(s.lr * s.multipliers[layer.name] * g)
    return loss


def calls():
    return data.classification(8, seed=32)
