"""Early stopping with numpy bookkeeping: best loss as np.inf first, a patience counter,
the best weights kept as numpy arrays, a `stop` flag returned."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (np.append, .numpy() copies of the weights: numpy work on the host)


class State:
    def __init__(self):
        rng = np.random.RandomState(12)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.opt = tf.keras.optimizers.SGD(0.3)
        self.best = np.inf
        self.wait = 0
        self.patience = 2
        self.best_weights = None
        self.losses = np.zeros(0, np.float32)


def make_state():
    return State()


def step(s, x, y, x_val, y_val):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    s.opt.apply_gradients([(tape.gradient(loss, s.w), s.w)])
    val_loss = tf.reduce_mean(tf.square(x_val @ s.w - y_val)).numpy()
    s.losses = np.append(s.losses, val_loss)
    if val_loss < s.best - 1e-4:
        s.best = val_loss
        s.wait = 0
        s.best_weights = s.w.numpy().copy()
    else:
        s.wait += 1
    stop = s.wait >= s.patience
    if stop:
        print(f"early stop: best val {s.best:.5f} after {len(s.losses)} epochs")
    return loss, stop


def calls():
    batches = data.regression(12, seed=13)
    x_val, y_val = data.regression(1, seed=14)[0]
    return [(x, y, x_val, y_val) for x, y in batches]
