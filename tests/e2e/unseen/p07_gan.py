"""A GAN step with two tapes (generator and discriminator), the noise from a seeded
tf.random.Generator, BinaryCrossentropy from logits, losses returned as a dict."""
import keras
import numpy as np
import tensorflow as tf

GRAPHS = True


class State:
    def __init__(self):
        keras.utils.set_random_seed(7)
        self.gen = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"),
                                     keras.layers.Dense(2)])
        self.disc = keras.Sequential([keras.Input((2,)), keras.layers.Dense(8),
                                      keras.layers.LeakyReLU(0.2), keras.layers.Dense(1)])
        self.g_opt = keras.optimizers.Adam(1e-3, beta_1=0.5)
        self.d_opt = keras.optimizers.Adam(1e-3, beta_1=0.5)
        self.bce = keras.losses.BinaryCrossentropy(from_logits=True)
        self.noise = tf.random.Generator.from_seed(11)


def make_state():
    return State()


def step(s, real):
    z = s.noise.normal([tf.shape(real)[0], 3])
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = s.gen(z, training=True)
        real_out = s.disc(real, training=True)
        fake_out = s.disc(fake, training=True)
        g_loss = s.bce(tf.ones_like(fake_out), fake_out)
        d_loss = s.bce(tf.ones_like(real_out), real_out) + s.bce(tf.zeros_like(fake_out), fake_out)
    g_grads = g_tape.gradient(g_loss, s.gen.trainable_variables)
    d_grads = d_tape.gradient(d_loss, s.disc.trainable_variables)
    s.g_opt.apply_gradients(zip(g_grads, s.gen.trainable_variables))
    s.d_opt.apply_gradients(zip(d_grads, s.disc.trainable_variables))
    return {"g_loss": g_loss, "d_loss": d_loss}


def calls():
    rng = np.random.RandomState(8)
    return [(tf.constant((rng.randn(6, 2) + [2.0, -1.0]).astype(np.float32)),) for _ in range(8)]
