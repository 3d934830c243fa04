"""Keras metrics over "epochs": Mean and AUC and Precision updated each step, results read
as Python floats into a history dict, reset_state at each epoch end (every 4 calls)."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class State:
    def __init__(self):
        self.model = keras.Sequential([keras.layers.Dense(4, activation="relu"),
                                       keras.layers.Dense(1)])
        self.opt = keras.optimizers.Adam(0.01)
        self.metrics = {"loss": keras.metrics.Mean(), "auc": keras.metrics.AUC(num_thresholds=20),
                        "prec": keras.metrics.Precision()}
        self.history = {k: [] for k in self.metrics}
        self.batch = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(8, 3).astype(np.float32)
    return (tf.constant(x), tf.constant((x[:, :1] > 0).astype(np.float32)))


@JIT
def step(s, x, y):
    with tf.GradientTape() as tape:
        logits = s.model(x, training=True)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, logits))
    grads = tape.gradient(loss, s.model.trainable_weights)
    s.opt.apply_gradients(zip(grads, s.model.trainable_weights))
    probs = tf.sigmoid(logits)
    s.metrics["loss"].update_state(loss)
    s.metrics["auc"].update_state(y, probs)
    s.metrics["prec"].update_state(y, probs)
    s.batch += 1
    if s.batch % 4 == 0:
        for name, metric in s.metrics.items():
            s.history[name].append(round(float(metric.result()), 4))
            metric.reset_state()
    return loss


STEP = step
