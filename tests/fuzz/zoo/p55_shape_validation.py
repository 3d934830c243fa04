"""A user layer validating its input in `call` (a ValueError naming the bad shape, raised
after its Python call counter moved) and a user loss layer refusing NaN targets with a
tensor test; the training loop (outside the jitted step) catches the ValueError, counts the skipped batches and
logs them; some batches are crafted with the wrong feature count or rank.

janus (zoo-layers run): agrees; the malformed batches make the input shape vary, the
`x.shape[-1]` test in `call` then cannot be generalized and the function runs eagerly."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class CheckedDense(keras.layers.Layer):
    def __init__(self, units, features):
        super().__init__()
        self.units = units
        self.features = features
        self.attempts = 0
        self.accepted = 0
        self.kernel = self.add_weight(shape=(features, units), initializer="glorot_uniform",
                                      name="kernel")

    def call(self, x):
        self.attempts += 1
        if len(x.shape) != 2:
            raise ValueError(f"expected a rank-2 batch, got shape {tuple(x.shape)}")
        if x.shape[-1] != self.features:
            raise ValueError(f"expected {self.features} features, got {x.shape[-1]}")
        self.accepted += 1
        return tf.matmul(x, self.kernel)


class SafeMSE(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.nan_batches = 0

    def call(self, pred, target):
        bad = tf.reduce_any(tf.math.is_nan(target))
        if bad:
            target = tf.where(tf.math.is_nan(target), pred, target)
        return tf.reduce_mean(tf.square(pred - target))


class Loop:
    def __init__(self):
        self.layer = CheckedDense(2, 4)
        self.loss = SafeMSE()
        self.opt = keras.optimizers.SGD(0.1)
        self.skipped = []


def setup():
    return Loop()


def inputs(i):
    rng = np.random.RandomState(50 + i)
    features = 3 if i % 5 == 2 else 4
    x = rng.randn(5, features).astype(np.float32)
    if i % 7 == 4:
        x = x[None]
    y = rng.randn(5, 2).astype(np.float32)
    if i % 4 == 1:
        y[0, 1] = np.nan
    return tf.constant(x), tf.constant(y), i


@JIT
def train_step(s, x, y):
    with tf.GradientTape() as tape:
        loss = s.loss(s.layer(x), y)
    grads = tape.gradient(loss, s.layer.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.layer.trainable_variables))
    return loss


def STEP(s, x, y, i):
    """The training loop's body: a bad batch is skipped (the error comes out of the
    jitted step)."""
    try:
        loss = train_step(s, x, y)
    except ValueError as err:
        s.skipped.append(i)
        print(f"batch {i} skipped: {str(err).splitlines()[2 if len(str(err).splitlines()) > 2 else 0]}")
        return None, s.layer.attempts, s.layer.accepted
    return loss, s.layer.attempts, s.layer.accepted


def JITTED(s):
    return train_step
