"""A Poisson regression step guarded the way careful researchers guard their data:
`tf.debugging.assert_non_negative` on the count targets and `assert_all_finite` on the
features (InvalidArgumentError on poisoned batches), a Python `assert` on a tensor value
with an f-string message (`assert tf.reduce_max(tf.abs(x)) < LIMIT, f"..."`:
AssertionError on outliers), all after a Python counter of seen batches moved; input
noise from `tf.random.stateless_normal` seeded from the Python step counter;
`warnings.warn` with a tensor formatted in an f-string (`{loss:.3f}`) when the loss
spikes; a `print` of a progress line every 4 steps; the losses kept as Python floats
(`float(loss)`), the best three by `sorted(...)[:3]` and the worst by `max`."""
import warnings

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 22
LIMIT = 6.0


class State:
    def __init__(self):
        self.w = tf.Variable(tf.zeros([4, 1]))
        self.b = tf.Variable([0.1])
        self.seen = 0
        self.step = 0
        self.losses = []
        self.best = []
        self.worst = None
        self.spikes = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(8, 4).astype(np.float32) * 0.5
    rate = np.exp(x @ np.array([[0.5], [-0.3], [0.2], [0.1]], np.float32))
    y = rng.poisson(rate).astype(np.float32)
    if i % 7 == 3:
        y[2, 0] = -1.0            # a corrupt count
    if i % 9 == 5:
        x[1, 2] = np.nan          # a missing feature
    if i % 8 == 6:
        x[4, 0] = 9.0             # an outlier
    return tf.constant(x), tf.constant(y)


@JIT
def train_step(s, x, y):
    s.seen += 1
    tf.debugging.assert_non_negative(y, message="counts must be non-negative")
    tf.debugging.assert_all_finite(x, "features must be finite")
    assert tf.reduce_max(tf.abs(x)) < LIMIT, f"outlier in batch {s.seen}: {tf.reduce_max(x):.2f}"
    x = x + 0.05 * tf.random.stateless_normal(tf.shape(x), seed=[s.step, 69])
    with tf.GradientTape() as tape:
        log_rate = x @ s.w + s.b
        loss = tf.reduce_mean(tf.exp(log_rate) - y * log_rate)
    gw, gb = tape.gradient(loss, [s.w, s.b])
    s.w.assign_sub(0.1 * gw)
    s.b.assign_sub(0.1 * gb)
    if s.losses and loss > 1.5 * s.losses[-1]:
        warnings.warn(f"loss spiked to {loss:.3f} at step {s.step}")
        s.spikes += 1
    s.losses.append(float(loss))
    s.best = sorted(s.losses)[:3]
    s.worst = max(s.losses)
    s.step += 1
    if s.step % 4 == 0:
        print(f"step {s.step}: loss {loss.numpy():.4f} best {s.best[0]:.4f}")
    return loss


STEP = train_step
