"""A bag-of-embeddings text classifier fed tokenized batches as Python lists of lists of
ints: padding to the longest sentence in Python (`max(map(len, ...))`, list
concatenation), a tf.ragged.constant of the same batch for a ragged mean-pooled branch,
a Python-side vocabulary-coverage count (a dict of id counts), keyword-only arguments with
defaults (`*, pad_id=0, max_len=None`), truncation in Python, and per-call log entries (a
formatted string of Python facts with a dict of tensor metrics)."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
VOCAB = 20
PAD = 0


def pad_batch(seqs, *, pad_id=PAD, max_len=None):
    longest = max(map(len, seqs))
    if max_len is not None:
        longest = min(longest, max_len)
    return [s[:longest] + [pad_id] * (longest - len(s[:longest])) for s in seqs]


class State:
    def __init__(self):
        self.emb = keras.layers.Embedding(VOCAB, 8)
        self.head = keras.layers.Dense(3)
        self.emb.build((None,))
        self.head.build((None, 16))
        self.opt = keras.optimizers.SGD(0.2)
        self.seen = {}
        self.log = []
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 3 + i % 3
    seqs = [[int(t) for t in rng.randint(1, VOCAB, rng.randint(1, 7))] for _ in range(n)]
    labels = [int(sum(s) % 3) for s in seqs]
    return (seqs, labels, 5 if i % 4 == 3 else None)


@JIT
def train_step(s, seqs, labels, max_len=None):
    padded = pad_batch(seqs, max_len=max_len)
    ids = tf.constant(padded, dtype=tf.int32)
    mask = tf.cast(tf.not_equal(ids, PAD), tf.float32)
    ragged = tf.ragged.constant([s_[:len(padded[0])] for s_ in seqs])
    with tf.GradientTape() as tape:
        e = s.emb(ids) * mask[..., None]
        mean_pad = tf.reduce_sum(e, 1) / tf.maximum(tf.reduce_sum(mask, 1, keepdims=True), 1.0)
        mean_rag = tf.reduce_mean(tf.ragged.map_flat_values(s.emb, ragged), axis=1)
        logits = s.head(tf.concat([mean_pad, mean_rag], axis=-1))
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(
            tf.constant(labels), logits, from_logits=True))
    variables = s.emb.trainable_variables + s.head.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    for row in padded:
        for t in row:
            if t != PAD:
                s.seen[t] = s.seen.get(t, 0) + 1
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32),
                                          labels), tf.float32))
    s.step += 1
    s.log.append((f"step {s.step:03d} len={len(padded[0])} "
                  f"cover={len(s.seen) / (VOCAB - 1):.0%}", {"loss": loss, "acc": acc}))
    return loss, ragged.row_lengths(), acc


STEP = train_step
