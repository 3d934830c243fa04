"""Explicit `tf.while_loop` and `tf.cond` with Python closures: the loop body counts its
iterations in a Python list (eager runs the body once per iteration), the cond branches
record which branch ran."""
import numpy as np
import tensorflow as tf

GRAPHS = False  # (heap writes inside tf.while_loop / tf.cond callbacks: refused by design, eager runs them once per iteration)


class State:
    def __init__(self):
        rng = np.random.RandomState(64)
        self.w = tf.Variable(rng.randn(3, 3).astype(np.float32) * 0.4)
        self.trace = []


def make_state():
    return State()


def step(s, x, n):
    def cond(i, h):
        return i < n

    def body(i, h):
        s.trace.append("body")
        return i + 1, tf.tanh(h @ s.w)

    _, h = tf.while_loop(cond, body, [tf.constant(0), x])
    out = tf.cond(tf.reduce_sum(h) > 0,
                  lambda: (s.trace.append("pos"), h * 2)[1],
                  lambda: (s.trace.append("neg"), -h)[1])
    return out


def calls():
    rng = np.random.RandomState(65)
    return [(tf.constant(rng.randn(2, 3).astype(np.float32)), tf.constant(i % 3 + 1))
            for i in range(8)]
