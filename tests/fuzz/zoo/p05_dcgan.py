"""A (dense) GAN step with two tapes and two optimizers, noise from tf.random.normal."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
RESEED = True  # (draws from the global stream: the same seeds before each call)
NOISE = 4


def make_generator():
    return keras.Sequential([keras.layers.Dense(8), keras.layers.LeakyReLU(0.2),
                             keras.layers.Dense(6, activation="tanh")])


def make_discriminator():
    return keras.Sequential([keras.layers.Dense(8), keras.layers.LeakyReLU(0.2),
                             keras.layers.Dropout(0.3), keras.layers.Dense(1)])


cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


class State:
    def __init__(self):
        self.gen = make_generator()
        self.disc = make_discriminator()
        self.g_opt = keras.optimizers.Adam(1e-3)
        self.d_opt = keras.optimizers.Adam(1e-3)
        self.losses = {"gen": [], "disc": []}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(4, 6), tf.float32),)


@JIT
def train_step(s, images):
    noise = tf.random.normal([images.shape[0], NOISE])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated = s.gen(noise, training=True)
        real_output = s.disc(images, training=True)
        fake_output = s.disc(generated, training=True)
        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)
    g_grads = gen_tape.gradient(gen_loss, s.gen.trainable_variables)
    d_grads = disc_tape.gradient(disc_loss, s.disc.trainable_variables)
    s.g_opt.apply_gradients(zip(g_grads, s.gen.trainable_variables))
    s.d_opt.apply_gradients(zip(d_grads, s.disc.trainable_variables))
    s.losses["gen"].append(gen_loss)
    s.losses["disc"].append(disc_loss)
    return gen_loss, disc_loss


STEP = train_step
