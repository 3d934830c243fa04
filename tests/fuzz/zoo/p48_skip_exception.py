"""Python exceptions as control flow in a training step: a custom `class Skip(Exception)`
raised by a loss check in a jitted helper (`tf.math.is_finite(loss).numpy()`, `float(loss) > limit`), caught
in the step, a Python counter of skipped steps and a list of reasons; some calls' inputs
are crafted to give a NaN or a huge loss. A builtin ValueError (a bad
feature count) escapes: the harness compares exception types, and each side has its own
module's classes."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
LOSS_LIMIT = 50.0


class Skip(Exception):
    def __init__(self, reason, value=None):
        super().__init__(reason)
        self.reason = reason
        self.value = value


class State:
    def __init__(self):
        self.w = tf.Variable(tf.constant([[0.5], [-0.3], [0.2]]))
        self.b = tf.Variable(0.0)
        self.opt = keras.optimizers.SGD(0.05)
        self.skipped = 0
        self.reasons = []
        self.good = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(4, 3).astype(np.float32)
    y = rng.randn(4, 1).astype(np.float32)
    if i in (3, 11):
        x[2, 1] = np.nan
    if i in (6, 13):
        y *= 100.0
    if i == 9:
        x = x[:, :2]
    return (tf.constant(x), tf.constant(y))


def check_loss(loss, limit=LOSS_LIMIT):
    if not tf.math.is_finite(loss).numpy():
        raise Skip("non-finite loss")
    if float(loss) > limit:
        raise Skip("loss too large", value=round(float(loss), 2))
    return loss


@JIT
def grad_step(s, x, y):
    with tf.GradientTape() as tape:
        pred = tf.matmul(x, s.w) + s.b
        loss = check_loss(tf.reduce_mean(tf.square(pred - y)))
    grads = tape.gradient(loss, [s.w, s.b])
    s.opt.apply_gradients(zip(grads, [s.w, s.b]))
    s.good += 1
    return loss


@JIT
def step(s, x, y):
    if x.shape[-1] != s.w.shape[0]:
        raise ValueError(f"expected {s.w.shape[0]} features, got {x.shape[-1]}")
    try:
        loss = grad_step(s, x, y)
    except Skip as e:
        s.skipped += 1
        s.reasons.append((e.reason, e.value))
        return None
    return loss


STEP = step


def JITTED(state):
    return grad_step
