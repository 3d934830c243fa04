"""An exponential moving average of the weights kept by hand in a Python dict keyed by
`v.path`, the decay warmed up by a Python schedule with min()/max(), and evaluation that
swaps the EMA weights in, computes a validation loss, and swaps the raw weights back."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class State:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((4,)),
                                       keras.layers.Dense(6, activation="tanh", name="hidden"),
                                       keras.layers.Dense(2, name="out")], name="net")
        self.opt = keras.optimizers.Adam(0.02)
        self.ema = {v.path: tf.Variable(v, trainable=False)
                    for v in self.model.trainable_variables}
        self.step = 0
        self.decays = []
        self.val_losses = {}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(8, 4).astype(np.float32)
    y = np.stack([x[:, 0] - x[:, 1], x[:, 2] * 0.5], 1).astype(np.float32)
    return (tf.constant(x), tf.constant(y), i % 4 == 3)


def ema_decay(step, max_decay=0.99):
    return min(max_decay, (1.0 + step) / (10.0 + step))


def swap_in(s):
    backup = [tf.identity(v) for v in s.model.trainable_variables]
    for v in s.model.trainable_variables:
        v.assign(s.ema[v.path])
    return backup


@JIT
def step(s, x, y, evaluate):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(s.model(x, training=True) - y))
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.step += 1
    decay = max(0.0, ema_decay(s.step))
    s.decays.append(round(decay, 4))
    for v in s.model.trainable_variables:
        s.ema[v.path].assign(decay * s.ema[v.path] + (1 - decay) * v)
    if evaluate:
        backup = swap_in(s)
        val = tf.reduce_mean(tf.square(s.model(x, training=False) - y))
        for v, b in zip(s.model.trainable_variables, backup):
            v.assign(b)
        s.val_losses[s.step] = val
        return loss, val
    return loss, None


STEP = step
