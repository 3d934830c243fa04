"""A step that raises part way through after writing state: it appends the loss to a
history, bumps counters, then raises a custom EarlyStop when the loss has not improved
for `patience` calls; the caller keeps calling after it."""
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 4


class EarlyStop(Exception):
    def __init__(self, step, best):
        super().__init__(f"stop at {step}, best {best:.4f}")
        self.step, self.best = step, best


class State:
    def __init__(self):
        rng = np.random.RandomState(80)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.history = []
        self.best = None
        self.wait = 0
        self.patience = 2
        self.step = 0


def make_state():
    return State()


def step(s, x, y, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w - y))
    s.w.assign_sub(lr * tape.gradient(loss, s.w))
    s.step += 1
    s.history.append(loss)
    if s.best is None or loss < s.best:
        s.best = loss
        s.wait = 0
    else:
        s.wait += 1
        if s.wait > s.patience:
            s.wait = 0
            raise EarlyStop(s.step, float(s.best))
    return loss


def calls():
    return [(x, y, 0.3 if i % 4 == 3 else 0.02)
            for i, (x, y) in enumerate(data.regression(12, seed=81))]
