"""A small hand-written "trainer" object: a `@property` learning rate computed from a
Python step count, a `@staticmethod` loss, `functools.partial` for a weight-decay term
whose scale comes from a lambda schedule closing over `self`, `enumerate(zip(...))` over
layers and their gradients, a per-layer gradient-norm report sorted with
`sorted(key=lambda ...)` over `.numpy()` values, `reversed` layer order for a "top layers
first" clip, and a `collections.deque(maxlen=...)` of recent losses whose mean decides a
patience counter."""
import collections
import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class Trainer:
    def __init__(self, sizes=(4, 6, 5, 2), base_lr=0.1, warmup=4):
        rng = np.random.RandomState(3)
        self.weights = [tf.Variable(rng.randn(a, b).astype(np.float32) * 0.4, name=f"w{i}")
                        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))]
        self.base_lr = base_lr
        self.warmup = warmup
        self.step_count = 0
        self.recent = collections.deque(maxlen=4)
        self.best = float("inf")
        self.patience = 0
        self.report = []
        self.weight_decay = lambda: 1e-2 * 0.5 ** (self.step_count // 3)

    @property
    def lr(self):
        return self.base_lr * min(1.0, (self.step_count + 1) / self.warmup)

    @staticmethod
    def mse(pred, target):
        return tf.reduce_mean(tf.square(pred - target))

    @staticmethod
    def l2(weights, scale):
        return scale * tf.add_n([tf.reduce_sum(tf.square(w)) for w in weights])

    def forward(self, x):
        h = x
        for i, w in enumerate(self.weights):
            h = h @ w
            if i < len(self.weights) - 1:
                h = tf.nn.tanh(h)
        return h

    @JIT
    def train_step(self, x, y):
        reg = functools.partial(self.l2, scale=self.weight_decay())
        with tf.GradientTape() as tape:
            loss = self.mse(self.forward(x), y) + reg(self.weights)
        grads = tape.gradient(loss, self.weights)
        norms = {}
        for i, (w, g) in enumerate(zip(self.weights, grads)):
            norms[w.name.split(":")[0]] = float(tf.norm(g).numpy())
        clip = 1.0
        for w, g in zip(reversed(self.weights), reversed(grads)):
            g = tf.clip_by_norm(g, clip)
            w.assign_sub(self.lr * g)
            clip *= 0.8
        self.step_count += 1
        self.report.append([name for name, _ in sorted(norms.items(), key=lambda kv: -kv[1])])
        self.recent.append(float(loss))
        avg = sum(self.recent) / len(self.recent)
        if avg < self.best - 1e-3:
            self.best = avg
            self.patience = 0
        else:
            self.patience += 1
        return loss, round(avg, 5), self.patience


def setup():
    return Trainer()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(6, 4).astype(np.float32)
    y = np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2]], 1).astype(np.float32)
    return (tf.constant(x), tf.constant(y))


def STEP(t, x, y):
    return t.train_step(x, y)


def JITTED(t):
    return vars(Trainer)["train_step"]
