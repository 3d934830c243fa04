"""Input validation the way users write it: ValueError on a bad batch size, check_numerics
on the loss, tf.debugging asserts on labels; variables must not move on a failed call."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
BATCH = 4


class State:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3, 2]) * 0.1)
        self.seen = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 3 if i in (6, 11) else BATCH
    x = rng.randn(n, 3).astype(np.float32)
    if i == 9:
        x[0, 0] = np.nan
    y = rng.randint(0, 2 if i != 13 else 3, n)
    return (tf.constant(x), tf.constant(y))


@JIT
def step(s, x, y):
    if x.shape[0] != BATCH:
        raise ValueError(f"expected a batch of {BATCH}, got {x.shape}")
    tf.debugging.assert_less(y, tf.constant(2, y.dtype), message="labels must be 0 or 1")
    with tf.GradientTape() as tape:
        logits = x @ s.w
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        loss = tf.debugging.check_numerics(loss, "loss")
    s.w.assign_sub(0.1 * tape.gradient(loss, s.w))
    s.seen += int(x.shape[0])
    return loss


STEP = step
