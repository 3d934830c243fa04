"""A Transformer encoder block with tf.einsum attention, a padding mask and a causal mask,
Dropout controlled by training=; inference and training calls alternate."""
import keras
import numpy as np
import tensorflow as tf

GRAPHS = True


class Block(keras.layers.Layer):
    def __init__(self, d=8, heads=2):
        super().__init__(name="block")
        self.h, self.dk = heads, d // heads
        self.qkv = keras.layers.Dense(3 * d)
        self.out = keras.layers.Dense(d)
        self.norm1 = keras.layers.LayerNormalization()
        self.norm2 = keras.layers.LayerNormalization()
        self.ff = keras.Sequential([keras.layers.Dense(16, activation="gelu"), keras.layers.Dense(d)])
        self.drop = keras.layers.Dropout(0.1)

    def call(self, x, pad_mask, training=False):
        b, t = tf.shape(x)[0], tf.shape(x)[1]
        q, k, v = tf.split(self.qkv(x), 3, axis=-1)
        q = tf.reshape(q, [b, t, self.h, self.dk])
        k = tf.reshape(k, [b, t, self.h, self.dk])
        v = tf.reshape(v, [b, t, self.h, self.dk])
        scores = tf.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(self.dk)
        causal = tf.linalg.band_part(tf.ones([t, t]), -1, 0)
        mask = causal[None, None] * tf.cast(pad_mask[:, None, None, :], tf.float32)
        scores += (1.0 - mask) * -1e9
        attn = tf.nn.softmax(scores, axis=-1)
        ctx = tf.einsum("bhqk,bkhd->bqhd", attn, v)
        ctx = tf.reshape(ctx, [b, t, self.h * self.dk])
        x = self.norm1(x + self.drop(self.out(ctx), training=training))
        return self.norm2(x + self.drop(self.ff(x), training=training))


class State:
    def __init__(self):
        keras.utils.set_random_seed(4)
        self.block = Block()


def make_state():
    return State()


def step(s, x, lengths, training):
    pad_mask = tf.sequence_mask(lengths, maxlen=tf.shape(x)[1])
    y = s.block(x, pad_mask, training=training)
    return tf.reduce_sum(y * tf.cast(pad_mask, tf.float32)[..., None], axis=1)


def calls():
    rng = np.random.RandomState(5)
    out = []
    for i in range(10):
        t = 5
        x = tf.constant(rng.randn(3, t, 8).astype(np.float32))
        lengths = tf.constant(rng.randint(1, t + 1, size=3).astype(np.int32))
        out.append((x, lengths, i % 3 == 2))
    return out
