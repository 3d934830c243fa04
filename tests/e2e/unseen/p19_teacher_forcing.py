"""A seq2seq-style decoder trained with teacher forcing chosen per time step by a seeded
random.Random (scheduled sampling), a Python loop over time steps, GRUCell."""
import random

import keras
import numpy as np
import tensorflow as tf

GRAPHS = False  # (host randomness each time step: janus runs it split, as expected)


class State:
    def __init__(self):
        keras.utils.set_random_seed(19)
        self.cell = keras.layers.GRUCell(6)
        self.out = keras.layers.Dense(5)
        self.embed = keras.layers.Embedding(5, 4)
        self.opt = keras.optimizers.Adam(1e-2)
        self.rng = random.Random(3)
        self.ratio = 0.5


def make_state():
    return State()


def step(s, h0, targets):
    with tf.GradientTape() as tape:
        h = h0
        tok = tf.zeros([tf.shape(targets)[0]], tf.int32)
        loss = 0.0
        for t in range(targets.shape[1]):
            o, [h] = s.cell(s.embed(tok), [h])
            logits = s.out(o)
            loss += tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(targets[:, t], logits))
            if s.rng.random() < s.ratio:
                tok = targets[:, t]
            else:
                tok = tf.argmax(logits, axis=-1, output_type=tf.int32)
        loss /= targets.shape[1]
    variables = s.cell.trainable_variables + s.out.trainable_variables + s.embed.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    s.ratio *= 0.9
    return loss


def calls():
    rng = np.random.RandomState(27)
    return [(tf.constant(rng.randn(2, 6).astype(np.float32)),
             tf.constant(rng.randint(0, 5, size=(2, 3)).astype(np.int32))) for _ in range(6)]
