"""A step that mutates a dataclass of training statistics (best loss, patience, a list
of losses as floats) and samples a replay buffer (`collections.deque`) by index with a
numpy Generator; the log is an f-string with the tensor's value."""
import collections
import dataclasses

import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = False  # (numpy Generator sampling: host randomness, a graph break)


@dataclasses.dataclass
class Stats:
    best: float = float("inf")
    bad_steps: int = 0
    losses: list = dataclasses.field(default_factory=list)


class State:
    def __init__(self):
        rng = np.random.RandomState(56)
        self.w = tf.Variable(rng.randn(4, 1).astype(np.float32))
        self.buffer = collections.deque(maxlen=5)
        self.rng = np.random.default_rng(2)
        self.stats = Stats()


def make_state():
    return State()


def step(s, x, y):
    s.buffer.append((x, y))
    i = int(s.rng.integers(len(s.buffer)))
    bx, by = s.buffer[i]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(bx @ s.w - by))
    s.w.assign_sub(0.05 * tape.gradient(loss, s.w))
    value = float(loss)
    s.stats.losses.append(value)
    if value < s.stats.best:
        s.stats.best = value
        s.stats.bad_steps = 0
    else:
        s.stats.bad_steps += 1
    print(f"sample {i} loss {loss:.4f} bad={s.stats.bad_steps}")
    return loss


def calls():
    return data.regression(8, seed=57)
