"""A VAE step: reparameterization with a seeded tf.random.Generator, KL + reconstruction,
Adam."""
import keras
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True


class VAE(tf.Module):
    def __init__(self, latent=2):
        super().__init__()
        self.enc = keras.layers.Dense(2 * latent)
        self.dec = keras.layers.Dense(6)
        self.latent = latent

    def encode(self, x):
        mean, logvar = tf.split(self.enc(x), 2, axis=1)
        return mean, logvar

    def reparameterize(self, mean, logvar, rng):
        eps = rng.normal(shape=tf.shape(mean))
        return eps * tf.exp(logvar * 0.5) + mean


class State:
    def __init__(self):
        keras.utils.set_random_seed(2)
        self.vae = VAE()
        self.rng = tf.random.Generator.from_seed(42)
        self.opt = keras.optimizers.Adam(1e-3)


def make_state():
    return State()


def step(s, x):
    with tf.GradientTape() as tape:
        mean, logvar = s.vae.encode(x)
        z = s.vae.reparameterize(mean, logvar, s.rng)
        recon = s.vae.dec(z)
        rec_loss = tf.reduce_mean(tf.reduce_sum(tf.square(recon - x), axis=1))
        kl = -0.5 * tf.reduce_mean(tf.reduce_sum(1 + logvar - tf.square(mean) - tf.exp(logvar), axis=1))
        loss = rec_loss + kl
    variables = s.vae.enc.trainable_variables + s.vae.dec.trainable_variables
    grads = tape.gradient(loss, variables)
    s.opt.apply_gradients(zip(grads, variables))
    return {"loss": loss, "kl": kl, "rec": rec_loss}


def calls():
    return [(x,) for x, _ in data.classification(8)]
