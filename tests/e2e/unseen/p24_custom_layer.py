"""A custom Keras layer with add_weight and an activity regularization through add_loss,
the model's `losses` summed into the loss; tf.debugging.check_numerics in the step, the
batch with a NaN caught by the caller's try/except (InvalidArgumentError)."""
import keras
import numpy as np
import tensorflow as tf

GRAPHS = False  # (try/except around the step's check is not converted; a layer's add_loss is refused by design: zoo10-F65)


class Scaled(keras.layers.Layer):
    def __init__(self, units):
        super().__init__(name="scaled")
        self.units = units

    def build(self, shape):
        self.kernel = self.add_weight(shape=(shape[-1], self.units), initializer="glorot_uniform",
                                      name="kernel")
        self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

    def call(self, x):
        y = self.scale * tf.matmul(x, self.kernel)
        self.add_loss(1e-2 * tf.reduce_mean(tf.square(y)))
        return y


class State:
    def __init__(self):
        keras.utils.set_random_seed(24)
        self.layer = Scaled(3)
        self.layer.build((None, 4))
        self.opt = keras.optimizers.Adam(1e-2)
        self.bad_batches = 0


def make_state():
    return State()


def step(s, x, y):
    try:
        x = tf.debugging.check_numerics(x, "bad input")
    except tf.errors.InvalidArgumentError:
        s.bad_batches += 1
        return None
    with tf.GradientTape() as tape:
        pred = s.layer(x)
        loss = tf.reduce_mean(tf.square(pred - y)) + tf.add_n(s.layer.losses)
    grads = tape.gradient(loss, s.layer.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.layer.trainable_variables))
    return loss


def calls():
    rng = np.random.RandomState(35)
    out = []
    for i in range(10):
        x = rng.randn(5, 4).astype(np.float32)
        if i == 6:
            x[2, 1] = np.nan
        out.append((tf.constant(x), tf.constant(rng.randn(5, 3).astype(np.float32))))
    return out
