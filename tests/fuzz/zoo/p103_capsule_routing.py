"""A capsule network head with dynamic routing-by-agreement: primary capsules from a
Dense layer reshaped to `[batch, n_in, d_in]`, per-pair transformation matrices in a
tf.Variable used with `tf.einsum`, routing logits `b` refined over a Python number of
iterations (`ROUTING` from a config object, 3 then 2 once `s.step > 8` to save time),
the `squash` nonlinearity with an epsilon, the coupling coefficients from
`tf.nn.softmax(b, axis=2)`, `tf.stop_gradient` on the predictions in all but the last
iteration (as in the paper's reference code), the margin loss with `m+`, `m-` and a
down-weighting `lam` Python floats, a reconstruction regularizer from the masked
capsule of the true class (`tf.one_hot` mask, `tf.reduce_sum(..., 1)`), and the mean
agreement per routing iteration kept in a Python list of lists of floats.

janus (session 28, h2): agrees on all 14 calls; 11 as graphs; steady 6x faster than plain."""
import dataclasses

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
IN, N_IN, D_IN, N_OUT, D_OUT = 8, 6, 4, 3, 5


@dataclasses.dataclass
class Config:
    routing: int = 3
    m_plus: float = 0.9
    m_minus: float = 0.1
    lam: float = 0.5
    recon_weight: float = 0.05


class State:
    def __init__(self):
        self.cfg = Config()
        self.primary = keras.layers.Dense(N_IN * D_IN)
        self.primary.build((None, IN))
        rng = np.random.RandomState(103)
        self.W = tf.Variable(0.1 * rng.randn(N_IN, N_OUT, D_OUT, D_IN).astype(np.float32))
        self.decoder = keras.Sequential([keras.layers.Dense(16, activation="relu"),
                                         keras.layers.Dense(IN)])
        self.decoder.build((None, N_OUT * D_OUT))
        self.opt = keras.optimizers.Adam(5e-3)
        self.step = 0
        self.agreement = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(1030 + i)
    y = rng.randint(0, N_OUT, 10)
    x = rng.randn(10, IN).astype(np.float32) + np.eye(N_OUT, IN, dtype=np.float32)[y] * 2
    return tf.constant(x), tf.constant(y)


def squash(v, axis=-1, eps=1e-7):
    sq = tf.reduce_sum(tf.square(v), axis, keepdims=True)
    return sq / (1.0 + sq) * v / tf.sqrt(sq + eps)


def route(s, u_hat):
    b = tf.zeros(tf.shape(u_hat)[:3])
    trace = []
    for it in range(s.cfg.routing):
        c = tf.nn.softmax(b, axis=2)
        last = it == s.cfg.routing - 1
        preds = u_hat if last else tf.stop_gradient(u_hat)
        v = squash(tf.einsum("bij,bijd->bjd", c, preds))
        if not last:
            agree = tf.einsum("bijd,bjd->bij", preds, v)
            b = b + agree
            trace.append(round(float(tf.reduce_mean(agree)), 5))
    return v, trace


@JIT
def train_step(s, x, y):
    s.step += 1
    if s.step > 8:
        s.cfg.routing = 2
    with tf.GradientTape() as tape:
        u = squash(tf.reshape(s.primary(x), [-1, N_IN, D_IN]))
        u_hat = tf.einsum("ijdk,bik->bijd", s.W, u)
        v, trace = route(s, u_hat)
        lengths = tf.norm(v, axis=-1)
        t = tf.one_hot(y, N_OUT)
        margin = (t * tf.square(tf.nn.relu(s.cfg.m_plus - lengths)) +
                  s.cfg.lam * (1 - t) * tf.square(tf.nn.relu(lengths - s.cfg.m_minus)))
        masked = tf.reshape(v * t[:, :, None], [-1, N_OUT * D_OUT])
        recon = tf.reduce_mean(tf.square(s.decoder(masked) - x))
        loss = tf.reduce_mean(tf.reduce_sum(margin, 1)) + s.cfg.recon_weight * recon
    variables = s.primary.trainable_variables + [s.W] + s.decoder.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    s.agreement.append(trace)
    acc = tf.reduce_mean(tf.cast(tf.argmax(lengths, 1) == tf.cast(y, tf.int64), tf.float32))
    return loss, acc


STEP = train_step
