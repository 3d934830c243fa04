"""A keras.Sequential mixing the user's layers (a learnable gated residual with a Python
call counter, a clipping layer whose bound is a Python attribute, with
`compute_output_shape`) and built-in layers (Dropout with a seed, BatchNormalization);
training and inference calls alternate; the clip bound is annealed between calls."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class Gate(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = 0

    def build(self, input_shape):
        self.g = self.add_weight(shape=(input_shape[-1],), initializer="zeros", name="g")

    def call(self, x):
        self.seen += 1
        return x + tf.sigmoid(self.g) * tf.nn.silu(x)

    def compute_output_shape(self, input_shape):
        return input_shape


class Clip(keras.layers.Layer):
    def __init__(self, bound=3.0, **kwargs):
        super().__init__(**kwargs)
        self.bound = bound

    def call(self, x):
        return tf.clip_by_value(x, -self.bound, self.bound)

    def compute_output_shape(self, input_shape):
        return input_shape


def make_model():
    return keras.Sequential([
        keras.Input(shape=(5,)),
        keras.layers.Dense(12),
        keras.layers.BatchNormalization(),
        Gate(name="gate1"),
        keras.layers.Dropout(0.3, seed=11),
        Clip(2.5, name="clip"),
        keras.layers.Dense(12),
        Gate(name="gate2"),
        keras.layers.Dense(3),
    ])


class State:
    def __init__(self):
        self.model = make_model()
        self.opt = keras.optimizers.RMSprop(5e-3)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(30 + i)
    x = (rng.randn(16, 5) * 2).astype(np.float32)
    y = (x[:, 0] + x[:, 2] > 0).astype(np.int32) + (x[:, 1] > 1).astype(np.int32)
    return tf.constant(x), tf.constant(y), i % 3 != 1


@JIT
def step(s, x, y, train):
    s.step += 1
    if s.step % 4 == 0:
        s.model.get_layer("clip").bound *= 0.9
    if not train:
        logits = s.model(x, training=False)
        return tf.reduce_mean(tf.cast(tf.argmax(logits, -1, output_type=tf.int32) == y,
                                      tf.float32))
    with tf.GradientTape() as tape:
        logits = s.model(x, training=True)
        loss = s.loss_fn(y, logits)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss



def observe(s):
    """The Python state the harness does not see inside layers (sublayers' attributes,
    tracked lists and dicts), read after the call, outside the jitted function."""
    return (s.model.get_layer('gate1').seen, s.model.get_layer('gate2').seen,
            s.model.get_layer('clip').bound)


def STEP(s, *args):
    return step(s, *args), observe(s)


def JITTED(s):
    return step
