"""A closure making the learning-rate function, a generator slicing the batch into
micro-batches, a running loss kept by a closure over a Python list."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


def make_lr(base, warmup):
    def lr(step):
        return base * min(1.0, (step + 1) / warmup)
    return lr


def make_logger():
    seen = []

    def log(value):
        seen.append(value)
        return len(seen)
    return log, seen


def micro_batches(x, y, size):
    for start in range(0, x.shape[0], size):
        yield x[start:start + size], y[start:start + size]


class State:
    def __init__(self):
        self.w = tf.Variable([[0.1], [0.2]])
        self.lr = make_lr(0.2, 5)
        self.log, self.seen = make_logger()
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 6 if i < 7 else 4
    x = rng.randn(n, 2).astype(np.float32)
    return (tf.constant(x), tf.constant(x.sum(1, keepdims=True)), 2 + i % 2)


@JIT
def step(s, x, y, size):
    total = 0.0
    count = 0
    for xb, yb in micro_batches(x, y, size):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(xb, s.w) - yb) ** 2)
        s.w.assign_sub(s.lr(s.step) * tape.gradient(loss, s.w))
        total += loss
        count += 1
    s.step += 1
    n = s.log(total / count)
    return total / count, n


STEP = step
