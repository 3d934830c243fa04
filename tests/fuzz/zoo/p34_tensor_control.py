"""Tensor-dependent control flow inside a tape: a loss halved when large (`if loss >
...`), a backtracking line search (`while` on a tensor test with a Python counter), and
a per-example loop over a batch with a tensor `if` choosing the loss."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class State:
    def __init__(self):
        self.w = tf.Variable([[0.5], [-0.3]])
        self.steps = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(4, 2) * (1 + i % 3), tf.float32), tf.constant(rng.randn(4, 1), tf.float32))


def loss_fn(w, x, y):
    err = x @ w - y
    total = 0.0
    for k in range(x.shape[0]):
        e = err[k, 0]
        if tf.abs(e) < 1.0:
            total += 0.5 * e * e
        else:
            total += tf.abs(e) - 0.5
    return total / x.shape[0]


@JIT
def step(s, x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(s.w, x, y)
        if loss > 2.0:
            loss = loss * 0.5
    g = tape.gradient(loss, s.w)
    lr = tf.constant(1.0)
    tries = 0
    while loss_fn(s.w - lr * g, x, y) > loss - 0.1 * lr * tf.reduce_sum(g * g) and tries < 5:
        lr = lr * 0.5
        tries += 1
    s.w.assign_sub(lr * g)
    s.steps.append(tries)
    return loss, lr


STEP = step
