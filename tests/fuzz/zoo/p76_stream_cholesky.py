"""Online Bayesian linear regression on random features, fed by Python iterators kept on
the heap: a `yield`-based generator method (created once in `__init__`, its state
advancing across calls) that draws micro-batches from a numpy pool with a seeded
`random.Random`, pulled by the step with `next(...)` a Python-argument number of times;
an `itertools.cycle` over feature-map names taken with `itertools.islice` (so the
feature map used changes from call to call); the posterior solved with
`tf.linalg.cholesky` checked by `tf.debugging.check_numerics` inside `try/except
tf.errors.InvalidArgumentError` (the precision
matrix is sometimes made indefinite on purpose by a negative "forgetting" weight), the
except branch retrying with a growing jitter in a Python `for` loop and counting the
retries; the posterior mean kept in a tf.Variable, the jitter and failure log in Python."""
import itertools
import random

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 20
D = 5


class Learner:
    def __init__(self):
        pool_rng = np.random.RandomState(76)
        self.pool_x = pool_rng.randn(200, 3).astype(np.float32)
        self.pool_y = (np.sin(self.pool_x[:, 0]) + 0.3 * self.pool_x[:, 1]).astype(np.float32)
        self.rng = random.Random(76)
        self.stream = self.batches(4)
        self.maps = itertools.cycle(["cos", "tanh", "relu"])
        self.omega = tf.constant(np.random.RandomState(7).randn(3, D).astype(np.float32))
        self.precision = tf.Variable(tf.eye(D))
        self.shift = tf.Variable(tf.zeros([D, 1]))
        self.mean = tf.Variable(tf.zeros([D, 1]))
        self.jitter = 0.0
        self.failures = []
        self.pulled = 0
        self.used_maps = []

    def batches(self, size):
        epoch = 0
        while True:
            order = list(range(len(self.pool_x)))
            self.rng.shuffle(order)
            for start in range(0, len(order) - size + 1, size):
                idx = order[start:start + size]
                yield epoch, tf.constant(self.pool_x[idx]), tf.constant(self.pool_y[idx][:, None])
            epoch += 1

    def features(self, x, kind):
        z = x @ self.omega
        if kind == "cos":
            return tf.cos(z)
        if kind == "tanh":
            return tf.tanh(z)
        return tf.nn.relu(z)


def setup():
    return Learner()


def inputs(i):
    return (1 + i % 3, -0.9 if i % 6 == 4 else 0.98, i)


@JIT
def update(m, n_micro, forget, i):
    kinds = list(itertools.islice(m.maps, 2))
    m.used_maps.append("+".join(kinds))
    for _ in range(n_micro):
        epoch, x, y = next(m.stream)
        m.pulled += 1
        phi = tf.concat([m.features(x, kinds[0])[:, :3], m.features(x, kinds[1])[:, 3:]], 1)
        m.precision.assign(forget * m.precision + tf.transpose(phi) @ phi)
        m.shift.assign(forget * m.shift + tf.transpose(phi) @ y)
    chol = None
    for attempt in range(4):
        try:
            chol = tf.debugging.check_numerics(
                tf.linalg.cholesky(m.precision + m.jitter * tf.eye(D)), "cholesky")
            break
        except tf.errors.InvalidArgumentError:
            m.failures.append((i, attempt))
            m.jitter = 1e-3 if m.jitter == 0.0 else m.jitter * 100.0
    if chol is None:
        m.precision.assign(tf.eye(D))
        m.shift.assign(tf.zeros([D, 1]))
        m.jitter = 0.0
        return None
    m.mean.assign(tf.linalg.cholesky_solve(chol, m.shift))
    m.jitter = m.jitter * 0.1 if m.jitter > 1e-6 else 0.0
    return tf.reduce_sum(m.mean), epoch


STEP = update
