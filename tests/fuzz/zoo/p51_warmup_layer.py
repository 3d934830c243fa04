"""A custom Keras layer with a Python call counter, a warmup phase decided by a Python
test on the counter (`if self.step < 3:`), and a tensor-dependent branch
(`if tf.reduce_mean(x) > 0:`) that rescales its output; trained with a GradientTape step
that also logs the layer's step every few calls.

janus (zoo-layers run): agrees; ends eager (a heap write inside the tensor `if` in
`call` is not generalized; `layer.step` is guarded by value while it counts)."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class WarmupDense(keras.layers.Layer):
    def __init__(self, units, warmup=3):
        super().__init__()
        self.units = units
        self.warmup = warmup
        self.step = 0
        self.positive_calls = 0

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                      initializer="glorot_uniform", name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

    def call(self, x):
        self.step += 1
        if self.step < self.warmup:
            scale = 0.1 * self.step
        else:
            scale = 1.0
        y = tf.matmul(x, self.kernel) * scale + self.bias
        if tf.reduce_mean(x) > 0:
            self.positive_calls += 1
            y = tf.nn.relu(y)
        else:
            y = tf.tanh(y)
        return y


class State:
    def __init__(self):
        self.layer = WarmupDense(4)
        self.out = keras.layers.Dense(1)
        self.opt = keras.optimizers.SGD(0.05)
        self.losses = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(8, 3).astype(np.float32) + (0.6 if i % 3 == 0 else -0.4)
    y = x.sum(axis=1, keepdims=True)
    return tf.constant(x), tf.constant(y)


@JIT
def train_step(s, x, y):
    with tf.GradientTape() as tape:
        pred = s.out(s.layer(x))
        loss = tf.reduce_mean(tf.square(pred - y))
    variables = s.layer.trainable_variables + s.out.trainable_variables
    grads = tape.gradient(loss, variables)
    s.opt.apply_gradients(zip(grads, variables))
    s.losses.append(loss)
    if s.layer.step % 4 == 0:
        print(f"layer step {s.layer.step}, positive so far {s.layer.positive_calls}")
    return loss


STEP = train_step
