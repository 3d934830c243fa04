"""An epoch function: iterates a tf.data pipeline (shuffle with a seed, batch) inside the
jitted function, sums the loss per batch, counts batches in Python."""
import numpy as np
import tensorflow as tf

GRAPHS = False  # (a tape and apply_gradients per element: the loop body split per iteration, by design)


class State:
    def __init__(self):
        rng = np.random.RandomState(15)
        self.w = tf.Variable(rng.randn(3, 1).astype(np.float32))
        self.opt = tf.keras.optimizers.SGD(0.05)
        self.batches_seen = 0


def make_state():
    return State()


def step(s, dataset):
    total = 0.0
    n = 0
    for x, y in dataset:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(x @ s.w - y))
        s.opt.apply_gradients([(tape.gradient(loss, s.w), s.w)])
        total += loss
        n += 1
    s.batches_seen += n
    return total / n


def calls():
    rng = np.random.RandomState(16)
    xs = rng.randn(20, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(20, seed=1,
                                                              reshuffle_each_iteration=False).batch(6)
    return [(ds,) for _ in range(6)]
