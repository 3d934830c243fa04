"""A small CNN with BatchNormalization (moving statistics are variables) trained and
evaluated alternately; train and eval Mean metrics updated in the graph."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class State:
    def __init__(self):
        self.model = keras.Sequential([
            keras.Input((6, 6, 1)),
            keras.layers.Conv2D(4, 3, padding="same"),
            keras.layers.BatchNormalization(momentum=0.8),
            keras.layers.ReLU(),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(),
            keras.layers.Dense(3)])
        self.opt = keras.optimizers.SGD(0.05, nesterov=True, momentum=0.9)
        self.train_loss = keras.metrics.Mean()
        self.eval_acc = keras.metrics.SparseCategoricalAccuracy()


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(4, 6, 6, 1), tf.float32), tf.constant(rng.randint(0, 3, 4)),
            "train" if i % 4 else "eval")


@JIT
def step(s, images, labels, mode):
    if mode == "train":
        with tf.GradientTape() as tape:
            logits = s.model(images, training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        grads = tape.gradient(loss, s.model.trainable_variables)
        s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
        s.train_loss.update_state(loss)
        return {"loss": loss, "avg": s.train_loss.result()}
    logits = s.model(images, training=False)
    s.eval_acc.update_state(labels, logits)
    return {"acc": s.eval_acc.result(), "pred": tf.argmax(logits, -1)}


STEP = step
