"""Counters and an exponential moving average of the weights kept in tf.Variables
updated with assign_add/assign in Python loops; a step counter read with `int()`."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class State:
    def __init__(self):
        self.ws = [tf.Variable(tf.ones([2, 2]) * 0.5), tf.Variable(tf.zeros([2]))]
        self.ema = [tf.Variable(w) for w in self.ws]
        self.step = tf.Variable(0, dtype=tf.int64)
        self.seen = tf.Variable(tf.zeros([3]))
        self.decay = 0.9


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(3, 2), tf.float32), tf.constant(rng.randint(0, 3, 3)))


@JIT
def step(s, x, classes):
    with tf.GradientTape() as tape:
        out = tf.matmul(x, s.ws[0]) + s.ws[1]
        loss = tf.reduce_mean(out ** 2)
    for w, g in zip(s.ws, tape.gradient(loss, s.ws)):
        w.assign_sub(0.1 * g)
    for w, e in zip(s.ws, s.ema):
        e.assign(s.decay * e + (1.0 - s.decay) * w)
    for c in range(3):
        s.seen[c].assign(s.seen[c] + tf.reduce_sum(tf.cast(classes == c, tf.float32)))
    s.step.assign_add(1)
    if int(s.step) % 4 == 0:
        s.decay = min(0.99, s.decay + 0.02)
    return loss, s.step.read_value()


STEP = step
