"""Tensors in strings: f-strings with `.numpy()`, `%` formatting, `str(tensor)`,
tf.strings.format, tf.print with a summarize, shapes printed."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 12


class State:
    def __init__(self):
        self.v = tf.Variable(tf.zeros([2]))
        self.log = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(2 + i % 2, 2), tf.float32), i)


@JIT
def step(s, x, i):
    m = tf.reduce_mean(x, axis=0)
    s.v.assign_add(m)
    print("batch shape:", x.shape, "mean of means %.3f" % float(tf.reduce_mean(m)))
    msg = tf.strings.format("step {} v={}", (i, s.v))
    s.log.append(msg)
    if i % 3 == 0:
        print(f"[{i:03d}] v = {s.v.numpy().round(3)} max={tf.reduce_max(x):.2f}")
        tf.print("tf.print:", m, summarize=2)
    s.log.append("norm=%s" % np.round(tf.norm(s.v).numpy(), 3))
    return msg


STEP = step
