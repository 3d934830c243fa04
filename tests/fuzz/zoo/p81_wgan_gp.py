"""WGAN-GP on 2-D toy data: a critic and a generator as keras Sequentials, `n_critic`
critic iterations in a Python `for` loop (a Python int that changes between calls), the
gradient penalty computed with a GradientTape *inside* the critic's tape
(`gp_tape.gradient(critic(interp), interp)` then `tf.norm` on it), interpolation weights
from `tf.random.uniform` (RESEED), a generator update every call with its own tape, the
real batch sliced per critic iteration with Python arithmetic, Wasserstein estimates
appended to a list, `lambda_gp` a keyword argument sometimes passed, and a `dict` of the
last losses returned.

janus (this session): agrees on all 16 calls; 0 whole-function graphs: with RESEED the
global seed is set, so every `tf.random.*` draw is a graph break ('draws from
TensorFlow's global random stream ... with a seed'); runs split at the breaks, one graph
segment (the critic update); under the harness's forced segments ~1.6x slower than
eager in steady state (~1.2x with janus's default settings). (The break list attributes
a `random_normal` break to line 65, `r = real[...]`, which draws nothing.)"""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
RESEED = True
Z = 3


def mlp(inp, out):
    return keras.Sequential([keras.Input((inp,)), keras.layers.Dense(16, activation="tanh"),
                             keras.layers.Dense(16, activation="tanh"),
                             keras.layers.Dense(out)])


class State:
    def __init__(self):
        self.gen = mlp(Z, 2)
        self.critic = mlp(2, 1)
        self.g_opt = keras.optimizers.Adam(1e-3, beta_1=0.5, beta_2=0.9)
        self.c_opt = keras.optimizers.Adam(1e-3, beta_1=0.5, beta_2=0.9)
        self.w_dist = []
        self.gp_log = []
        self.calls = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(810 + i)
    n_critic = 2 if i < 6 else (3 if i % 2 else 1)
    batch = 8
    centers = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], np.float32)
    real = centers[rng.randint(0, 4, batch * n_critic)] + 0.05 * rng.randn(batch * n_critic, 2)
    return tf.constant(real.astype(np.float32)), n_critic, batch


def gradient_penalty(critic, real, fake):
    eps = tf.random.uniform([tf.shape(real)[0], 1], 0.0, 1.0)
    interp = eps * real + (1.0 - eps) * fake
    with tf.GradientTape() as gp_tape:
        gp_tape.watch(interp)
        score = critic(interp)
    g = gp_tape.gradient(score, interp)
    norm = tf.norm(g, axis=1)
    return tf.reduce_mean(tf.square(norm - 1.0))


@JIT
def train_step(s, real, n_critic, batch, lambda_gp=10.0):
    s.calls += 1
    out = {}
    for k in range(n_critic):
        r = real[k * batch:(k + 1) * batch]
        z = tf.random.normal([batch, Z])
        with tf.GradientTape() as tape:
            fake = s.gen(z)
            d_real = tf.reduce_mean(s.critic(r))
            d_fake = tf.reduce_mean(s.critic(fake))
            gp = gradient_penalty(s.critic, r, fake)
            c_loss = d_fake - d_real + lambda_gp * gp
        grads = tape.gradient(c_loss, s.critic.trainable_variables)
        s.c_opt.apply_gradients(zip(grads, s.critic.trainable_variables))
        s.w_dist.append(d_real - d_fake)
        out["critic"] = c_loss
    s.gp_log.append(gp)
    z = tf.random.normal([batch, Z])
    with tf.GradientTape() as tape:
        g_loss = -tf.reduce_mean(s.critic(s.gen(z)))
    grads = tape.gradient(g_loss, s.gen.trainable_variables)
    s.g_opt.apply_gradients(zip(grads, s.gen.trainable_variables))
    out["gen"] = g_loss
    out["n"] = n_critic
    return out


def STEP(s, real, n_critic, batch):
    if s.calls % 5 == 4:
        return train_step(s, real, n_critic, batch, lambda_gp=5.0)
    return train_step(s, real, n_critic, batch)


def JITTED(state):
    return train_step
