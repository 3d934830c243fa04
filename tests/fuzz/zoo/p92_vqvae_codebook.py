"""A VQ-VAE on small vectors with an EMA codebook: encoder and decoder keras MLPs, the
codebook, its EMA cluster sizes and sums as tf.Variables updated with `assign` (no
gradient), nearest-code lookup with `tf.argmin` over squared distances, the straight-
through estimator `z + tf.stop_gradient(q - z)`, a commitment loss weight `beta` from a
Python schedule, dead-code restarts decided by a tensor test
(`if tf.reduce_any(s.usage < threshold):`) that re-seeds dead codes from the batch's
encodings and counts restarts in a Python dict keyed by the step, the codebook
perplexity returned, and a Python `history` dict of lists fed every call.

janus (session 27, h4): agrees on all 18 calls; 11 as graphs, but each specialized to
the value of `s.step` (used as the dict key of `s.restarts`, and hashed it cannot be
fed, so every fed number stays guarded): a graph per call until the churn bound (F139)
stops generating — over 18 calls janus is far slower (8 generations, ~5 s of tracing);
over 40 calls even with plain. With `s.restarts.append(s.step)` instead of the dict:
32 of 40 calls as graphs, ~13x faster than plain."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
K, D, IN = 8, 3, 6
DECAY = 0.9


class State:
    def __init__(self):
        self.enc = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                                     keras.layers.Dense(D)])
        self.dec = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                                     keras.layers.Dense(IN)])
        rng = np.random.RandomState(92)
        self.codebook = tf.Variable(rng.randn(K, D).astype(np.float32), trainable=False)
        self.ema_size = tf.Variable(tf.ones([K]), trainable=False)
        self.ema_sum = tf.Variable(self.codebook.read_value(), trainable=False)
        self.usage = tf.Variable(tf.ones([K]), trainable=False)
        self.opt = keras.optimizers.Adam(2e-3)
        self.restarts = {}
        self.history = {"recon": [], "perplexity": []}
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(920 + i)
    centers = np.eye(IN, dtype=np.float32)[rng.randint(0, 3, 16)] * 3.0
    return (tf.constant(centers + 0.1 * rng.randn(16, IN).astype(np.float32)),
            0.05 if i < 6 else 0.2)


def quantize(codebook, z):
    d = (tf.reduce_sum(z ** 2, 1, keepdims=True) - 2.0 * z @ tf.transpose(codebook)
         + tf.reduce_sum(codebook ** 2, 1)[None, :])
    codes = tf.argmin(d, axis=1)
    return tf.gather(codebook, codes), codes


@JIT
def train_step(s, x, threshold):
    s.step += 1
    beta = 0.25 * min(1.0, s.step / 5)
    with tf.GradientTape() as tape:
        z = s.enc(x)
        q, codes = quantize(s.codebook, z)
        z_q = z + tf.stop_gradient(q - z)
        recon = tf.reduce_mean(tf.square(s.dec(z_q) - x))
        commit = tf.reduce_mean(tf.square(z - tf.stop_gradient(q)))
        loss = recon + beta * commit
    variables = s.enc.trainable_variables + s.dec.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    onehot = tf.one_hot(codes, K)
    counts = tf.reduce_sum(onehot, 0)
    s.ema_size.assign(DECAY * s.ema_size + (1 - DECAY) * counts)
    s.ema_sum.assign(DECAY * s.ema_sum + (1 - DECAY) * tf.transpose(onehot) @ z)
    n = tf.reduce_sum(s.ema_size)
    size = (s.ema_size + 1e-5) / (n + K * 1e-5) * n
    s.codebook.assign(s.ema_sum / size[:, None])
    s.usage.assign(0.8 * s.usage + 0.2 * counts / tf.cast(tf.shape(x)[0], tf.float32))
    if tf.reduce_any(s.usage < threshold):
        dead = s.usage < threshold
        picks = tf.gather(z, tf.range(K) % tf.shape(z)[0])
        s.codebook.assign(tf.where(dead[:, None], picks, s.codebook))
        s.usage.assign(tf.where(dead, tf.ones([K]) * 0.5, s.usage))
        s.restarts[s.step] = s.restarts.get(s.step, 0) + 1
    probs = counts / tf.reduce_sum(counts)
    perplexity = tf.exp(-tf.reduce_sum(probs * tf.math.log(probs + 1e-10)))
    s.history["recon"].append(recon)
    s.history["perplexity"].append(perplexity)
    return loss, perplexity


STEP = train_step
