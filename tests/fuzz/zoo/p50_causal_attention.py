"""A tiny decoder-only language model step: token embeddings plus learned positions,
causal self-attention with a mask from `tf.linalg.band_part`, a multi-head
reshape/transpose, a Python `for` over blocks stored in a list, residual connections and
LayerNorm, next-token cross-entropy with padding masked out, the losses kept in a dict
keyed by a Python step counter; sequence length (and batch) change between calls, so
shapes change."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
VOCAB, D_MODEL, HEADS, MAX_LEN, PAD = 11, 8, 2, 12, 0


class Block:
    def __init__(self, d_model, heads):
        self.heads, self.depth = heads, d_model // heads
        self.qkv = keras.layers.Dense(3 * d_model, use_bias=False)
        self.proj = keras.layers.Dense(d_model)
        self.ln1 = keras.layers.LayerNormalization(epsilon=1e-5)
        self.ln2 = keras.layers.LayerNormalization(epsilon=1e-5)
        self.ff1 = keras.layers.Dense(2 * d_model, activation="gelu")
        self.ff2 = keras.layers.Dense(d_model)

    def split_heads(self, x, batch, length):
        x = tf.reshape(x, [batch, length, self.heads, self.depth])
        return tf.transpose(x, [0, 2, 1, 3])

    def __call__(self, x, mask):
        batch, length = tf.shape(x)[0], tf.shape(x)[1]
        q, k, v = tf.split(self.qkv(self.ln1(x)), 3, axis=-1)
        q, k, v = (self.split_heads(t, batch, length) for t in (q, k, v))
        scores = tf.matmul(q, k, transpose_b=True) / tf.math.sqrt(float(self.depth))
        scores += (1.0 - mask) * -1e9
        attn = tf.nn.softmax(scores, axis=-1)
        out = tf.transpose(tf.matmul(attn, v), [0, 2, 1, 3])
        out = tf.reshape(out, [batch, length, self.heads * self.depth])
        x = x + self.proj(out)
        return x + self.ff2(self.ff1(self.ln2(x)))

    @property
    def trainable_variables(self):
        layers = [self.qkv, self.proj, self.ln1, self.ln2, self.ff1, self.ff2]
        return [v for layer in layers for v in layer.trainable_variables]


class LM:
    def __init__(self, n_blocks=2):
        self.embed = keras.layers.Embedding(VOCAB, D_MODEL)
        self.pos = tf.Variable(tf.random.normal([MAX_LEN, D_MODEL], stddev=0.1, seed=5))
        self.blocks = [Block(D_MODEL, HEADS) for _ in range(n_blocks)]
        self.ln_f = keras.layers.LayerNormalization(epsilon=1e-5)
        self.opt = keras.optimizers.Adam(5e-3)
        self.steps = 0
        self.loss_at = {}

    def __call__(self, ids):
        length = tf.shape(ids)[1]
        x = self.embed(ids) + self.pos[:length]
        mask = tf.linalg.band_part(tf.ones([length, length]), -1, 0)
        for block in self.blocks:
            x = block(x, mask)
        h = self.ln_f(x)
        return tf.matmul(h, self.embed.embeddings, transpose_b=True)

    @property
    def trainable_variables(self):
        vs = self.embed.trainable_variables + [self.pos]
        for block in self.blocks:
            vs += block.trainable_variables
        return vs + self.ln_f.trainable_variables


def setup():
    lm = LM()
    lm(tf.ones([1, 3], tf.int32))
    return lm


def inputs(i):
    rng = np.random.RandomState(i)
    batch, length = 2 + i % 2, 4 + (i * 3) % 7
    ids = rng.randint(1, VOCAB, size=(batch, length)).astype(np.int32)
    ids[0, length - 1 - i % 3:] = PAD
    return (tf.constant(ids),)


@JIT
def train_step(lm, ids):
    inp, tgt = ids[:, :-1], ids[:, 1:]
    weights = tf.cast(tf.not_equal(tgt, PAD), tf.float32)
    with tf.GradientTape() as tape:
        logits = lm(inp)
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(tgt, logits)
        loss = tf.reduce_sum(xent * weights) / tf.maximum(tf.reduce_sum(weights), 1.0)
    variables = lm.trainable_variables
    grads = tape.gradient(loss, variables)
    lm.opt.apply_gradients(zip(grads, variables))
    lm.steps += 1
    lm.loss_at[lm.steps] = loss
    return loss, tf.argmax(logits[:, -1], axis=-1)


STEP = train_step
