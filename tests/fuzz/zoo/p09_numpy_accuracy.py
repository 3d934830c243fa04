"""Accuracy computed with numpy on `.numpy()` values, a history of Python floats, the
best accuracy and patience counter kept as attributes (early stopping)."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class State:
    def __init__(self):
        self.w = tf.Variable(tf.random.normal([4, 3], seed=8) * 0.1)
        self.history = []
        self.best = 0.0
        self.wait = 0
        self.stopped = False


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(10, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 1).astype(np.int64)
    return (tf.constant(x), tf.constant(y))


@JIT
def step(s, x, y):
    if s.stopped:
        return None
    with tf.GradientTape() as tape:
        logits = tf.matmul(x, s.w)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.5 * g)
    preds = tf.argmax(logits, axis=1).numpy()
    acc = float(np.mean(preds == y.numpy()))
    s.history.append(acc)
    if acc > s.best + 0.01:
        s.best = acc
        s.wait = 0
    else:
        s.wait += 1
        if s.wait >= 4:
            print("early stopping at", len(s.history), "best", s.best)
            s.stopped = True
    return loss, acc


STEP = step
