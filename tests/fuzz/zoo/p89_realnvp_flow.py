"""A RealNVP normalizing flow trained by maximum likelihood on a 2-D toy density: a
Python list of affine coupling layers (each a small keras MLP giving scale and shift),
binary masks built with numpy and alternated by layer index, fixed permutations between
couplings drawn once from a seeded numpy Generator, the log-determinant accumulated in
a Python loop (`log_det += tf.reduce_sum(s, -1)`), `tf.tanh`-bounded scales, an
ActNorm layer initialized data-dependently on its first batch (a Python `initialized`
flag on the layer object, `assign` from the batch statistics), the NLL in bits per dim,
gradients clipped by global norm, and a dataclass of running diagnostics (min/max
log-det seen, number of non-finite steps skipped when `tf.reduce_all(tf.math.is_finite())`
fails).

janus (session 27, h4): agrees on all 16 calls (the non-finite batch's early return
too); `float(tf.reduce_mean(log_det))` is a graph break, so the function runs split
(three segment graphs); steady ~2x faster than plain. With the diagnostics kept as
tensors (`tf.minimum`) instead, 13 of 16 calls run as whole graphs, ~25x faster."""
import dataclasses
import math

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
DIM = 2


class ActNorm(keras.layers.Layer):
    def build(self, shape):
        self.loc = self.add_weight(shape=(shape[-1],), initializer="zeros", name="loc")
        self.log_scale = self.add_weight(shape=(shape[-1],), initializer="zeros",
                                         name="log_scale")
        self.initialized = False

    def call(self, x):
        if not self.initialized:
            mean, var = tf.nn.moments(x, axes=[0])
            self.loc.assign(-mean)
            self.log_scale.assign(-0.5 * tf.math.log(var + 1e-6))
            self.initialized = True
        y = (x + self.loc) * tf.exp(self.log_scale)
        return y, tf.reduce_sum(self.log_scale) * tf.ones([tf.shape(x)[0]])


class Coupling(keras.layers.Layer):
    def __init__(self, mask, hidden=16):
        super().__init__()
        self.mask = tf.constant(mask, tf.float32)
        self.net = keras.Sequential([keras.layers.Dense(hidden, activation="relu"),
                                     keras.layers.Dense(2 * DIM)])

    def call(self, x):
        xm = x * self.mask
        s, t = tf.split(self.net(xm), 2, axis=-1)
        s = tf.tanh(s) * (1.0 - self.mask)
        t = t * (1.0 - self.mask)
        return xm + (1.0 - self.mask) * (x * tf.exp(s) + t), tf.reduce_sum(s, axis=-1)


@dataclasses.dataclass
class Diagnostics:
    min_logdet: float = math.inf
    max_logdet: float = -math.inf
    skipped: int = 0
    steps: int = 0
    bpd: list = dataclasses.field(default_factory=list)


class State:
    def __init__(self, n_couplings=4):
        gen = np.random.default_rng(89)
        self.actnorm = ActNorm()
        self.layers = []
        self.perms = []
        for k in range(n_couplings):
            mask = np.arange(DIM) % 2 == k % 2
            self.layers.append(Coupling(mask.astype(np.float32)))
            self.perms.append(gen.permutation(DIM))
        self.opt = keras.optimizers.Adam(3e-3)
        self.diag = Diagnostics()

    @property
    def variables(self):
        out = list(self.actnorm.trainable_variables)
        for layer in self.layers:
            out += layer.trainable_variables
        return out


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(890 + i)
    n = 32
    theta = rng.uniform(0, 2 * np.pi, n)
    r = 2.0 + 0.2 * rng.randn(n)
    x = np.stack([r * np.cos(theta), r * np.sin(theta)], 1).astype(np.float32)
    if i == 9:
        x[0, 0] = np.inf
    return (tf.constant(x), 1.0 if i < 8 else 5.0)


def forward(s, x):
    z, log_det = s.actnorm(x)
    for layer, perm in zip(s.layers, s.perms):
        z, ld = layer(z)
        log_det += ld
        z = tf.gather(z, perm, axis=1)
    return z, log_det


@JIT
def train_step(s, x, clip):
    with tf.GradientTape() as tape:
        z, log_det = forward(s, x)
        log_pz = -0.5 * tf.reduce_sum(z ** 2, -1) - 0.5 * DIM * math.log(2 * math.pi)
        nll = -tf.reduce_mean(log_pz + log_det)
    s.diag.steps += 1
    if not tf.reduce_all(tf.math.is_finite(nll)):
        s.diag.skipped += 1
        return None
    grads = tape.gradient(nll, s.variables)
    grads, norm = tf.clip_by_global_norm(grads, clip)
    s.opt.apply_gradients(zip(grads, s.variables))
    mean_ld = float(tf.reduce_mean(log_det))
    s.diag.min_logdet = min(s.diag.min_logdet, mean_ld)
    s.diag.max_logdet = max(s.diag.max_logdet, mean_ld)
    bpd = nll / (DIM * math.log(2.0))
    s.diag.bpd.append(bpd)
    return bpd, norm


STEP = train_step
