"""Scaled dot-product attention with a padding mask and a look-ahead mask, written by hand;
the attention weights kept for plotting in a Python list."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


def create_padding_mask(seq):
    seq = tf.cast(tf.math.equal(seq, 0), tf.float32)
    return seq[:, tf.newaxis, tf.newaxis, :]


def create_look_ahead_mask(size):
    return 1 - tf.linalg.band_part(tf.ones((size, size)), -1, 0)


def scaled_dot_product_attention(q, k, v, mask):
    matmul_qk = tf.matmul(q, k, transpose_b=True)
    dk = tf.cast(tf.shape(k)[-1], tf.float32)
    scaled = matmul_qk / tf.math.sqrt(dk)
    if mask is not None:
        scaled += (mask * -1e9)
    weights = tf.nn.softmax(scaled, axis=-1)
    return tf.matmul(weights, v), weights


class State:
    def __init__(self):
        self.wq = tf.Variable(tf.random.normal([5, 8], seed=4) * 0.3)
        self.wk = tf.Variable(tf.random.normal([5, 8], seed=5) * 0.3)
        self.wv = tf.Variable(tf.random.normal([5, 8], seed=6) * 0.3)
        self.emb = tf.Variable(tf.random.normal([9, 5], seed=7))
        self.plots = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    length = 4 + i % 3
    tokens = rng.randint(0, 9, (2, length))
    tokens[:, 0] = 1
    return (tf.constant(tokens), i % 2 == 0)


@JIT
def step(s, tokens, causal):
    x = tf.nn.embedding_lookup(s.emb, tokens)
    q, k, v = [tf.einsum("bld,de->ble", x, w)[:, tf.newaxis] for w in (s.wq, s.wk, s.wv)]
    mask = create_padding_mask(tokens)
    if causal:
        mask = tf.maximum(mask, create_look_ahead_mask(tf.shape(tokens)[1]))
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    if len(s.plots) < 5:
        s.plots.append(weights[0, 0])
    return tf.reduce_sum(out, axis=[1, 2])


STEP = step
