"""A user normalization layer keeping running statistics: a `tf.Variable` step counter
updated in `call` (`self.count.assign_add(1)`), running mean/var variables updated with
a momentum that depends on the Python counter (bias correction while `self.py_count` is
small), a Python counter and a Python list of the batch sizes it saw; used in training
(`training=True` updates, `False` reads) inside a small model.

janus (zoo-layers run): agrees, but slower than eager: the layer's tracked list
`self.sizes` (append-only) gets a `len(...) == k` guard (tracer._import_tracked ignores
the append-only plan), so every training call traces anew until the generation limit."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class RunningNorm(keras.layers.Layer):
    def __init__(self, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.py_count = 0
        self.sizes = []

    def build(self, input_shape):
        d = input_shape[-1]
        self.count = self.add_weight(shape=(), initializer="zeros", dtype="int64",
                                     trainable=False, name="count")
        self.mean = self.add_weight(shape=(d,), initializer="zeros", trainable=False,
                                    name="mean")
        self.var = self.add_weight(shape=(d,), initializer="ones", trainable=False,
                                   name="var")

    def call(self, x, training=False):
        if training:
            self.count.assign_add(1)
            self.py_count += 1
            self.sizes.append(int(x.shape[0]))
            m = min(self.momentum, 1.0 - 1.0 / (self.py_count + 1))
            mean, var = tf.nn.moments(x, axes=[0])
            self.mean.assign(m * self.mean + (1 - m) * mean)
            self.var.assign(m * self.var + (1 - m) * var)
        return (x - self.mean) / tf.sqrt(self.var + 1e-5)


class Model(keras.Model):
    def __init__(self):
        super().__init__()
        self.norm = RunningNorm()
        self.fc = keras.layers.Dense(8, activation="relu")
        self.out = keras.layers.Dense(1)

    def call(self, x, training=False):
        return self.out(self.fc(self.norm(x, training=training)))


class State:
    def __init__(self):
        self.model = Model()
        self.opt = keras.optimizers.SGD(0.02)
        self.model(tf.zeros([1, 3]))


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(80 + i)
    n = 8 if i % 5 else 4
    x = (rng.randn(n, 3) * [1.0, 5.0, 0.2] + [0.0, 10.0, -1.0]).astype(np.float32)
    y = (x[:, :1] * 0.5).astype(np.float32)
    return tf.constant(x), tf.constant(y), i % 4 != 3


@JIT
def step(s, x, y, train):
    if not train:
        return tf.reduce_mean(tf.abs(s.model(x, training=False) - y))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(s.model(x, training=True) - y))
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss


def STEP(s, *args):
    out = step(s, *args)
    norm = s.model.norm
    return out, norm.py_count, list(norm.sizes), int(norm.count.numpy())


def JITTED(s):
    return step
