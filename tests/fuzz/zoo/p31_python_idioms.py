"""Python idioms around tensors: a module-level step counter (`global`), a Python
`assert` on shapes, `sum()` of a list of tensors, functools.partial losses, `with
tf.device`, a tf.Variable created lazily on the first call, a dict of callables."""
import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
GLOBAL_STEP = 0
LOSSES = {"l1": lambda a, b: tf.reduce_mean(tf.abs(a - b)),
          "l2": lambda a, b: tf.reduce_mean(tf.square(a - b))}


def weighted(loss, weight, a, b):
    return weight * loss(a, b)


class State:
    def __init__(self):
        self.w = None
        self.parts = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(4, 3), tf.float32), tf.constant(rng.randn(4, 3), tf.float32),
            "l1" if i % 3 else "l2")


@JIT
def step(s, x, y, kind):
    global GLOBAL_STEP
    assert x.shape[-1] == 3, f"bad feature size {x.shape}"
    if s.w is None:
        s.w = tf.Variable(tf.eye(3))
    terms = [functools.partial(weighted, LOSSES[k], wt) for k, wt in (("l1", 0.3), (kind, 1.0))]
    with tf.device("/CPU:0"):
        with tf.GradientTape() as tape:
            pred = x @ s.w
            loss = sum(t(pred, y) for t in terms)
        s.w.assign_sub(0.1 * tape.gradient(loss, s.w))
    GLOBAL_STEP += 1
    s.parts.append(len(terms))
    return loss, GLOBAL_STEP


STEP = step
