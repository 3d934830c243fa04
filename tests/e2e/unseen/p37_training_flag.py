"""A Keras subclassed model whose `call` branches on `training` in Python ifs (noise on
inputs, Dropout and BatchNormalization in training mode), trained and evaluated in
alternation by the same step with a Python `training` flag."""
import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 6


class Net(keras.Model):
    def __init__(self):
        super().__init__(name="net")
        self.d1 = keras.layers.Dense(8)
        self.bn = keras.layers.BatchNormalization()
        self.drop = keras.layers.Dropout(0.3, seed=4)
        self.d2 = keras.layers.Dense(3)

    def call(self, x, training=False):
        if training:
            x = x + 0.0 * tf.reduce_mean(x)
        h = tf.nn.relu(self.bn(self.d1(x), training=training))
        if training:
            h = self.drop(h, training=True)
        return self.d2(h)


class State:
    def __init__(self):
        keras.utils.set_random_seed(44)
        self.model = Net()
        self.opt = keras.optimizers.SGD(0.05)
        self.evals = []


def make_state():
    return State()


def step(s, x, y, training):
    if training:
        with tf.GradientTape() as tape:
            logits = s.model(x, training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, s.model.trainable_variables)
        s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
        return loss
    logits = s.model(x, training=False)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, -1), y), tf.float32))
    s.evals.append(acc)
    return acc


def calls():
    return [(x, y, i % 3 != 2) for i, (x, y) in enumerate(data.classification(12, seed=45))]
