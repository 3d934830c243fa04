"""Gradient accumulation: the batch split into micro-batches, gradients summed in a Python
list, applied once per call; a tf.Variable counter of micro-steps (assign_add)."""
import keras
import numpy as np
import tensorflow as tf

GRAPHS = True


class State:
    def __init__(self):
        keras.utils.set_random_seed(12)
        self.model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="tanh"),
                                       keras.layers.Dense(1)])
        self.opt = keras.optimizers.RMSprop(1e-2)
        self.micro_steps = tf.Variable(0, dtype=tf.int64)


def make_state():
    return State()


def step(s, x, y, n_micro=2):
    accum = [tf.zeros_like(v) for v in s.model.trainable_variables]
    total = 0.0
    for xb, yb in zip(tf.split(x, n_micro), tf.split(y, n_micro)):
        with tf.GradientTape() as tape:
            loss = keras.losses.mean_squared_error(yb, s.model(xb))
            loss = tf.reduce_mean(loss) / n_micro
        grads = tape.gradient(loss, s.model.trainable_variables)
        accum = [a + g for a, g in zip(accum, grads)]
        total += loss
        s.micro_steps.assign_add(1)
    s.opt.apply_gradients(zip(accum, s.model.trainable_variables))
    return total


def calls():
    rng = np.random.RandomState(17)
    out = []
    for i in range(10):
        out.append((tf.constant(rng.randn(8, 5).astype(np.float32)),
                    tf.constant(rng.randn(8, 1).astype(np.float32)), 4 if i >= 7 else 2))
    return out
