"""A @tf.function loss helper called from the step; the step raises on a NaN loss (a
batch that overflows)."""
import numpy as np
import tensorflow as tf

GRAPHS = True


class NaNLossError(RuntimeError):
    pass


@tf.function
def huber(pred, y, delta=1.0):
    err = tf.abs(pred - y)
    return tf.reduce_mean(tf.where(err < delta, 0.5 * err ** 2, delta * (err - 0.5 * delta)))


class State:
    def __init__(self):
        rng = np.random.RandomState(18)
        self.w = tf.Variable(rng.randn(3, 1).astype(np.float32))
        self.steps = 0


def make_state():
    return State()


def step(s, x, y, lr):
    with tf.GradientTape() as tape:
        loss = huber(x @ s.w, y)
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(lr * g)
    new_loss = huber(x @ s.w, y)
    if tf.math.is_nan(new_loss) or tf.math.is_inf(new_loss):
        raise NaNLossError(f"loss is {new_loss.numpy()} at step {s.steps}")
    s.steps += 1
    return new_loss


def calls():
    rng = np.random.RandomState(19)
    out = []
    for i in range(10):
        x = rng.randn(4, 3).astype(np.float32) * (1e19 if i == 6 else 1.0)
        out.append((tf.constant(x), tf.constant(rng.randn(4, 1).astype(np.float32)), 0.1))
    return out
