"""Python builtins on scalar tensors: `min(loss, cap)` (its type depends on the value),
a chained comparison `0.0 < loss < 1.0`, `math.sqrt` of a tensor, a `for ... else` with a
`break` on a tensor test, `sum(...) / len(...)` of a list of tensors, `abs`."""
import math

import numpy as np
import tensorflow as tf

GRAPHS = True
MIN_GRAPH_CALLS = 3  # (0 before F483/F484: `min(mean, cap)` and `math.sqrt(mean)` failed the trace)


class State:
    def __init__(self):
        rng = np.random.RandomState(76)
        self.w = tf.Variable(rng.randn(3, 1).astype(np.float32))
        self.flags = []


def make_state():
    return State()


def step(s, xs, y, cap):
    losses = []
    for x in xs:
        l = tf.reduce_mean(tf.square(x @ s.w - y))
        losses.append(l)
        if l > 4.0:
            s.flags.append("big")
            break
    else:
        s.flags.append("all")
    mean = sum(losses) / len(losses)
    capped = min(mean, cap)
    in_range = 0.0 < mean < 1.0
    rms = math.sqrt(mean)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(xs[0] @ s.w - y))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    return capped, in_range, rms, abs(mean - cap)


def calls():
    rng = np.random.RandomState(77)
    out = []
    for i in range(10):
        xs = [tf.constant(rng.randn(4, 3).astype(np.float32) * (1 + i % 3)) for _ in range(3)]
        out.append((xs, tf.constant(rng.randn(4, 1).astype(np.float32)), 2.0))
    return out
