"""A custom Keras layer with `add_weight` in `build` (built lazily on the first call), a
residual MLP block with `training=` and a Python list of blocks; inference alternates."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class ScaleShift(keras.layers.Layer):
    def build(self, input_shape):
        self.gamma = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="gamma")
        self.beta = self.add_weight(shape=(input_shape[-1],), initializer="zeros", name="beta")

    def call(self, x):
        return x * self.gamma + self.beta


class Block(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.dense = keras.layers.Dense(units, activation="gelu")
        self.norm = ScaleShift()
        self.drop = keras.layers.Dropout(0.2)

    def call(self, x, training=None):
        return x + self.drop(self.norm(self.dense(x)), training=training)


class Net(keras.Model):
    def __init__(self, depth=3):
        super().__init__()
        self.blocks = [Block(6) for _ in range(depth)]
        self.head = keras.layers.Dense(2)

    def call(self, x, training=None):
        for block in self.blocks:
            x = block(x, training=training)
        return self.head(x)


class State:
    def __init__(self):
        self.net = Net()
        self.opt = keras.optimizers.AdamW(learning_rate=0.01, weight_decay=0.01)
        self.net(tf.zeros([1, 6]))


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(4, 6), tf.float32), tf.constant(rng.randn(4, 2), tf.float32),
            i % 3 != 2)


@JIT
def step(s, x, y, train):
    if not train:
        return s.net(x, training=False)
    with tf.GradientTape() as tape:
        pred = s.net(x, training=True)
        loss = tf.reduce_mean(keras.losses.huber(y, pred))
    grads = tape.gradient(loss, s.net.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    s.opt.apply_gradients(zip(grads, s.net.trainable_variables))
    return loss


STEP = step
