"""A keras.Model subclass holding a Python list of the user's residual Block layers
(`self.blocks = [Block(...) for _ in range(3)]`), each with a `training` flag deciding
dropout in Python, a per-block call counter, and the model keeping a Python list of
per-call stats (`self.stats.append(...)`: the number of blocks run, the training flag).
Training steps alternate with evaluation; a `depth` Python argument skips blocks."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 15
RESEED = True  # (op-seeded dropout: eager keeps one RNG stream per seed in the process, shared by the two sides)


class Block(keras.layers.Layer):
    def __init__(self, units, rate=0.1):
        super().__init__()
        self.fc1 = keras.layers.Dense(units * 2, activation="relu")
        self.fc2 = keras.layers.Dense(units)
        self.norm = keras.layers.LayerNormalization()
        self.rate = rate
        self.calls = 0

    def call(self, x, training=False):
        self.calls += 1
        h = self.fc2(self.fc1(self.norm(x)))
        if training:
            h = tf.nn.dropout(h, rate=self.rate, seed=self.calls)
        return x + h


class ResNet(keras.Model):
    def __init__(self, units=8, depth=3):
        super().__init__()
        self.inp = keras.layers.Dense(units)
        self.blocks = [Block(units) for _ in range(depth)]
        self.head = keras.layers.Dense(1)
        self.stats = []

    def call(self, x, training=False, depth=None):
        h = self.inp(x)
        used = 0
        for block in self.blocks[:depth]:
            h = block(h, training=training)
            used += 1
        self.stats.append((used, bool(training)))
        return self.head(h)


class State:
    def __init__(self):
        self.model = ResNet()
        self.opt = keras.optimizers.Adam(1e-2)
        self.model(tf.zeros([1, 4]))


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(7 + i)
    x = rng.randn(6, 4).astype(np.float32)
    y = np.sin(x).sum(axis=1, keepdims=True).astype(np.float32)
    return tf.constant(x), tf.constant(y), i % 4 != 3, (None if i % 5 else 2)


@JIT
def step(s, x, y, train, depth):
    if not train:
        pred = s.model(x, training=False, depth=depth)
        return tf.reduce_mean(tf.abs(pred - y))
    with tf.GradientTape() as tape:
        pred = s.model(x, training=True, depth=depth)
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss



def observe(s):
    """The Python state the harness does not see inside layers (sublayers' attributes,
    tracked lists and dicts), read after the call, outside the jitted function."""
    return [b.calls for b in s.model.blocks], list(s.model.stats)


def STEP(s, *args):
    return step(s, *args), observe(s)


def JITTED(s):
    return step
