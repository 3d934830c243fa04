"""Custom gradients: a `tf.custom_gradient` gradient clipper and a straight-through
quantizer (VQ-VAE style `z + tf.stop_gradient(q - z)`), `tape.stop_recording()` for a
logged statistic, and `tape.reset()` when the loss is not finite."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


@tf.custom_gradient
def clip_gradient(x):
    def grad(upstream):
        return tf.clip_by_value(upstream, -0.1, 0.1)
    return tf.identity(x), grad


def quantize(z, codebook):
    d = tf.reduce_sum(tf.square(z[:, None, :] - codebook[None]), axis=-1)
    q = tf.gather(codebook, tf.argmin(d, axis=1))
    return z + tf.stop_gradient(q - z), q


class State:
    def __init__(self):
        self.enc = tf.Variable(tf.random.normal([3, 2], seed=21))
        self.codebook = tf.Variable(tf.random.normal([4, 2], seed=22))
        self.dec = tf.Variable(tf.random.normal([2, 3], seed=23))
        self.usage = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(5, 3), tf.float32),)


@JIT
def step(s, x):
    with tf.GradientTape() as tape:
        z = clip_gradient(x @ s.enc)
        zq, q = quantize(z, s.codebook)
        with tape.stop_recording():
            s.usage.append(tf.reduce_mean(tf.abs(zq - q)))
        recon = zq @ s.dec
        commit = tf.reduce_mean(tf.square(z - tf.stop_gradient(q)))
        codebook_loss = tf.reduce_mean(tf.square(tf.stop_gradient(z) - q))
        loss = tf.reduce_mean(tf.square(recon - x)) + 0.25 * commit + codebook_loss
    variables = [s.enc, s.codebook, s.dec]
    grads = tape.gradient(loss, variables)
    for v, g in zip(variables, grads):
        v.assign_sub(0.1 * tf.convert_to_tensor(g))
    return loss, [tf.convert_to_tensor(g) for g in grads]


STEP = step
