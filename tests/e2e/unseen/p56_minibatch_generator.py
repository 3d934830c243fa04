"""Minibatches from a Python generator inside the step (`yield` of tensor slices), a
dataset class with `__len__`/`__getitem__`, gradients skipped with `if g is None:
continue` (a variable the loss does not use), and a closure defined in the step."""
import numpy as np
import tensorflow as tf

GRAPHS = False  # (a generator function of the program's is not converted, by design: a break at the `for` over it; segments around it since F485)


class Pairs:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return int(self.x.shape[0])

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def minibatches(x, y, size):
    for start in range(0, int(x.shape[0]), size):
        yield x[start:start + size], y[start:start + size]


class State:
    def __init__(self):
        rng = np.random.RandomState(84)
        self.w = tf.Variable(rng.randn(3, 1).astype(np.float32))
        self.unused = tf.Variable(tf.zeros([2]))
        self.skipped = 0


def make_state():
    return State()


def step(s, x, y):
    def loss_of(xb, yb):
        return tf.reduce_mean(tf.square(xb @ s.w - yb))

    total = 0.0
    for xb, yb in minibatches(x, y, 2):
        with tf.GradientTape() as tape:
            loss = loss_of(xb, yb)
        for g, v in zip(tape.gradient(loss, [s.w, s.unused]), [s.w, s.unused]):
            if g is None:
                s.skipped += 1
                continue
            v.assign_sub(0.05 * g)
        total += loss
    data = Pairs(x, y)
    first_x, first_y = data[0]
    return total / len(data), loss_of(first_x[None, :], first_y[None, :])


def calls():
    rng = np.random.RandomState(85)
    return [(tf.constant(rng.randn(6, 3).astype(np.float32)),
             tf.constant(rng.randn(6, 1).astype(np.float32))) for _ in range(8)]
