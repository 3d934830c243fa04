"""A Keras LSTM layer over padded sequences with `mask_zero=True`, sequence lengths
changing between calls, a bidirectional wrapper, binary classification with AUC."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class State:
    def __init__(self):
        self.model = keras.Sequential([
            keras.layers.Embedding(12, 4, mask_zero=True),
            keras.layers.Bidirectional(keras.layers.LSTM(5)),
            keras.layers.Dense(1)])
        self.opt = keras.optimizers.Adam(0.01)
        self.auc = keras.metrics.AUC(from_logits=True, num_thresholds=10)


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    length = 4 + (i // 3) % 3
    tokens = rng.randint(1, 12, (3, length))
    for row in range(3):
        tokens[row, rng.randint(2, length + 1):] = 0
    return (tf.constant(tokens), tf.constant(rng.randint(0, 2, (3, 1)), tf.float32))


@JIT
def step(s, tokens, labels):
    with tf.GradientTape() as tape:
        logits = s.model(tokens, training=True)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels, logits))
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.auc.update_state(labels, logits)
    return loss, s.auc.result()


STEP = step
