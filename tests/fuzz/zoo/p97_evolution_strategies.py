"""OpenAI-style evolution strategies on a small policy regression task: the policy's
parameters flattened into one tf.Variable (`theta`) and unflattened with Python slices
from a list of `(shape, size)` kept on the state, antithetic Gaussian perturbations
drawn on the host with numpy (`eps` of shape [pop // 2, dim], mirrored with
`np.concatenate([eps, -eps])`) and passed in as a tensor, fitness evaluated for the
whole population with `tf.vectorized_map`-free batching (a Python loop over members
whose returns go to a Python list, then `tf.stack`), centred-rank fitness shaping done
in numpy on `.numpy()` values (`argsort().argsort()`), the update `theta.assign_add`,
weight decay with a Python float, a sigma annealed by a Python schedule, and the best
fitness so far / its parameters kept on the host (a Python float and a numpy copy),
with a patience counter that halves the learning rate.

janus (session 28, h2): agrees on all 14 calls; split at `.numpy()` (line 80, the
host-side rank shaping) and `float()` (line 86); 3 segment graphs, each run on half the
calls; steady about 2x faster than plain, the whole run 7-11x slower (tracing)."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
IN, HID, OUT, POP = 3, 6, 2, 8
SHAPES = [(IN, HID), (HID,), (HID, OUT), (OUT,)]


class State:
    def __init__(self):
        self.layout = []
        start = 0
        for shape in SHAPES:
            size = int(np.prod(shape))
            self.layout.append((shape, start, size))
            start += size
        self.dim = start
        rng = np.random.RandomState(97)
        self.theta = tf.Variable(0.3 * rng.randn(self.dim).astype(np.float32))
        self.lr = 0.05
        self.sigma = 0.1
        self.best = -float("inf")
        self.best_theta = None
        self.patience = 0
        self.history = []
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(970 + i)
    x = rng.randn(16, IN).astype(np.float32)
    y = np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2]], 1).astype(np.float32)
    eps = rng.randn(POP // 2, 6 * IN + 6 + 6 * OUT + OUT).astype(np.float32)
    return tf.constant(x), tf.constant(y), tf.constant(np.concatenate([eps, -eps]))


def unflatten(s, flat):
    return [tf.reshape(flat[start:start + size], shape) for shape, start, size in s.layout]


def policy(params, x):
    w1, b1, w2, b2 = params
    return tf.tanh(x @ w1 + b1) @ w2 + b2


def fitness(s, flat, x, y):
    return -tf.reduce_mean(tf.square(policy(unflatten(s, flat), x) - y))


def centered_ranks(values):
    ranks = values.argsort().argsort().astype(np.float32)
    return ranks / (len(values) - 1) - 0.5


@JIT
def es_step(s, x, y, eps):
    s.step += 1
    s.sigma = max(0.02, 0.1 * 0.9 ** s.step)
    returns = []
    for k in range(POP):
        returns.append(fitness(s, s.theta + s.sigma * eps[k], x, y))
    returns = tf.stack(returns)
    shaped = tf.constant(centered_ranks(returns.numpy()))
    grad = tf.reduce_sum(shaped[:, None] * eps, 0) / (POP * s.sigma)
    s.theta.assign_add(s.lr * grad - 0.005 * s.lr * s.theta)
    current = float(fitness(s, s.theta, x, y))
    s.history.append(round(current, 5))
    if current > s.best:
        s.best, s.best_theta, s.patience = current, s.theta.numpy().copy(), 0
    else:
        s.patience += 1
        if s.patience >= 3:
            s.lr *= 0.5
            s.patience = 0
    return current, tf.reduce_max(returns)


STEP = es_step
