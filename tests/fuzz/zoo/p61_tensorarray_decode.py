"""Batched greedy decoding with a GRU cell: a Python `while` whose condition mixes a tensor
test and a Python bound (`not tf.reduce_all(finished) and t < max_len`), emitted tokens
written to a `tf.TensorArray` (`.write(t, ...)`, `.stack()`), a `finished` mask updated
with `tf.logical_or`, finished rows forced to PAD with `tf.where`, per-row lengths from the
mask, a decoder object with `__call__` and a `@property`, and a keyword-only temperature
with a default."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
VOCAB, EOS, PAD, BOS = 6, 1, 0, 2
HID = 8


class Decoder:
    def __init__(self):
        self.emb = keras.layers.Embedding(VOCAB, 4)
        self.cell = keras.layers.GRUCell(HID)
        self.proj = keras.layers.Dense(VOCAB)
        self.emb.build((None,))
        self.cell.build((None, 4))
        self.proj.build((None, HID))

    @property
    def vocab_size(self):
        return self.proj.units

    def __call__(self, token, h, *, temperature=1.0):
        out, new_h = self.cell(self.emb(token), [h])
        return self.proj(out) / temperature, new_h[0]


class State:
    def __init__(self):
        self.dec = Decoder()
        self.lengths = []
        self.steps = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(3 + i % 2, HID) * 1.5, tf.float32), 4 + i % 5)


@JIT
def greedy(s, h, max_len, *, temperature=0.7):
    batch = tf.shape(h)[0]
    token = tf.fill([batch], BOS)
    finished = tf.zeros([batch], tf.bool)
    out = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    t = 0
    while not tf.reduce_all(finished) and t < max_len:
        logits, h = s.dec(token, h, temperature=temperature)
        assert logits.shape[-1] == s.dec.vocab_size
        token = tf.argmax(logits, -1, output_type=tf.int32)
        token = tf.where(finished, PAD, token)
        out = out.write(t, token)
        finished = tf.logical_or(finished, tf.equal(token, EOS))
        t += 1
    tokens = tf.transpose(out.stack())
    lengths = tf.reduce_sum(tf.cast(tf.not_equal(tokens, PAD), tf.int32), axis=1)
    s.lengths.append(lengths)
    s.steps.append(t)
    return tokens, lengths


STEP = greedy
