"""A Keras VAE-style model that records its KL term with `self.add_loss` in `call` and an
activity-regularized layer; the training step adds `sum(model.losses)`, and the caller
logs `model.losses` after each call."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 12


class Encoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(6, activation="relu",
                                         activity_regularizer=keras.regularizers.L1(1e-3))
        self.mu = keras.layers.Dense(2)
        self.logvar = keras.layers.Dense(2)
        self.out = keras.layers.Dense(4)

    def call(self, x):
        h = self.hidden(x)
        mu, logvar = self.mu(h), self.logvar(h)
        self.add_loss(-0.5 * tf.reduce_mean(1 + logvar - mu ** 2 - tf.exp(logvar)))
        return self.out(mu)


class State:
    def __init__(self):
        self.model = Encoder()
        self.opt = keras.optimizers.Adam(0.01)
        self.logged = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.rand(3, 4), tf.float32),)


@JIT
def train_step(s, x):
    with tf.GradientTape() as tape:
        recon = s.model(x)
        loss = tf.reduce_mean(tf.square(recon - x)) + tf.add_n(s.model.losses)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss


def STEP(s, x):
    loss = train_step(s, x)
    s.logged.append([round(float(v), 5) for v in s.model.losses])
    return loss


def JITTED(s):
    return train_step
