"""A VAE step: reparameterization with tf.random.normal, KL and reconstruction losses,
Adam; a Mean metric of the ELBO reset every 5 calls."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
RESEED = True  # (draws from the global stream: the same seeds before each call)


class VAE(keras.Model):
    def __init__(self, latent=2):
        super().__init__()
        self.latent = latent
        self.enc = keras.layers.Dense(8, activation="relu")
        self.mu = keras.layers.Dense(latent)
        self.logvar = keras.layers.Dense(latent)
        self.dec1 = keras.layers.Dense(8, activation="relu")
        self.dec2 = keras.layers.Dense(6)

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h)

    def reparameterize(self, mean, logvar):
        eps = tf.random.normal(shape=tf.shape(mean))
        return eps * tf.exp(logvar * 0.5) + mean

    def decode(self, z):
        return self.dec2(self.dec1(z))


class State:
    def __init__(self):
        self.model = VAE()
        self.opt = keras.optimizers.Adam(1e-2)
        self.elbo = keras.metrics.Mean()
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.rand(4, 6), tf.float32),)


@JIT
def train_step(s, x):
    with tf.GradientTape() as tape:
        mean, logvar = s.model.encode(x)
        z = s.model.reparameterize(mean, logvar)
        x_logit = s.model.decode(z)
        rec = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=x_logit), axis=1)
        kl = -0.5 * tf.reduce_sum(1 + logvar - tf.square(mean) - tf.exp(logvar), axis=1)
        loss = tf.reduce_mean(rec + kl)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.elbo.update_state(-loss)
    s.step += 1
    if s.step % 5 == 0:
        tf.print("elbo", s.elbo.result())
        s.elbo.reset_state()
    return loss, z


STEP = train_step
