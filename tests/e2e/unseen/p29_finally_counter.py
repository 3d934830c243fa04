"""A step wrapped in try/finally that counts attempts, a context manager of the
program's own timing nothing (a `with Phase(s, "fwd"):` that appends phase names), and
a `contextlib.suppress(ZeroDivisionError)` around a ratio of Python counters."""
import contextlib

import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (a context manager of the program's own: its __enter__/__exit__ are a graph break by design)


class Phase:
    def __init__(self, s, name):
        self.s, self.name = s, name

    def __enter__(self):
        self.s.phases.append(self.name)
        return self

    def __exit__(self, *exc):
        self.s.phases.append("/" + self.name)
        return False


class State:
    def __init__(self):
        rng = np.random.RandomState(41)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.attempts = 0
        self.phases = []
        self.ratio = None
        self.updates = 0


def make_state():
    return State()


def step(s, x, y, skip):
    try:
        with Phase(s, "fwd"):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(x @ s.w - y))
        if not skip:
            with Phase(s, "bwd"):
                s.w.assign_sub(0.1 * tape.gradient(loss, s.w))
                s.updates += 1
        with contextlib.suppress(ZeroDivisionError):
            s.ratio = s.updates / (s.attempts - s.updates + 0)
        return loss
    finally:
        s.attempts += 1


def calls():
    return [(x, y, i % 4 == 3) for i, (x, y) in enumerate(data.regression(10, seed=42))]
