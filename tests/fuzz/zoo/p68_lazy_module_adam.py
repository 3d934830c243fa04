"""A plain `tf.Module` MLP whose variables are created lazily on the first call (`if
self.w is None:` inside `__call__`, shapes from the input, under
`@tf.Module.with_name_scope`), parameters kept as a nested dict
({"layer0": {"w": ..., "b": ...}, ...}); a hand-written Adam whose moments are nested dicts
of tf.Variables made with `tf.nest.map_structure` on the first update and updated with
`tf.nest.map_structure` over (grads, m, v, params); bias correction and the learning rate
are `@property`s of the trainer computed from a Python step count; weight decay skipped for
biases by the dict key (a nested dict comprehension over `.items()`); the update norms kept in a
Python list."""
import math

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class Dense(tf.Module):
    def __init__(self, units, activation=None, name=None):
        super().__init__(name=name)
        self.units, self.activation = units, activation
        self.w = self.b = None

    @tf.Module.with_name_scope
    def __call__(self, x):
        if self.w is None:
            init = tf.random.stateless_normal([x.shape[-1], self.units], seed=[68, self.units])
            self.w = tf.Variable(init * math.sqrt(2.0 / x.shape[-1]), name="w")
            self.b = tf.Variable(tf.zeros([self.units]), name="b")
        y = x @ self.w + self.b
        return self.activation(y) if self.activation else y


class MLP(tf.Module):
    def __init__(self, sizes, name="mlp"):
        super().__init__(name=name)
        self.layers = [Dense(n, tf.nn.gelu if k < len(sizes) - 1 else None, name=f"layer{k}")
                       for k, n in enumerate(sizes)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def params(self):
        return {f"layer{k}": {"w": layer.w, "b": layer.b} for k, layer in enumerate(self.layers)}


class Trainer:
    def __init__(self, base_lr=0.02, betas=(0.9, 0.99), warmup=4, wd=0.01):
        self.base_lr, (self.b1, self.b2), self.warmup, self.wd = base_lr, betas, warmup, wd
        self.t = 0
        self.m = self.v = None
        self.update_norms = []

    @property
    def lr(self):
        return self.base_lr * min(1.0, (self.t + 1) / self.warmup)

    @property
    def correction(self):
        return math.sqrt(1 - self.b2 ** (self.t + 1)) / (1 - self.b1 ** (self.t + 1))

    def update(self, grads, params):
        if self.m is None:
            self.m = tf.nest.map_structure(lambda p: tf.Variable(tf.zeros_like(p)), params)
            self.v = tf.nest.map_structure(lambda p: tf.Variable(tf.zeros_like(p)), params)
        tf.nest.map_structure(lambda m, g: m.assign(self.b1 * m + (1 - self.b1) * g),
                              self.m, grads)
        tf.nest.map_structure(lambda v, g: v.assign(self.b2 * v + (1 - self.b2) * g * g),
                              self.v, grads)
        lr, corr = self.lr, self.correction

        def step(key, p, m, v):
            delta = lr * corr * m / (tf.sqrt(v) + 1e-7)
            if key == "w":
                delta += lr * self.wd * p
            p.assign_sub(delta)
            return tf.reduce_sum(delta * delta)

        sq = {name: {key: step(key, p, self.m[name][key], self.v[name][key])
                     for key, p in layer.items()} for name, layer in params.items()}
        self.update_norms.append(tf.sqrt(tf.add_n(tf.nest.flatten(sq))))
        self.t += 1


class State:
    def __init__(self):
        self.net = MLP([8, 8, 1])
        self.trainer = Trainer()


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(10, 3).astype(np.float32)
    y = np.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3]
    return tf.constant(x), tf.constant(y.astype(np.float32))


@JIT
def train_step(s, x, y):
    with tf.GradientTape() as tape:
        pred = s.net(x)  # (variables made here on the first call: the tape watches them)
        loss = tf.reduce_mean(tf.square(pred - y))
    params = s.net.params()
    grads = tape.gradient(loss, params)
    s.trainer.update(grads, params)
    return loss, s.trainer.lr


STEP = train_step
