"""A seq2seq copy-and-reverse task trained with scheduled sampling: batches arrive as a
namedtuple `Batch(src, tgt, lengths)`, a GRU encoder (keras.layers.GRU with
return_state) and a GRUCell decoder stepped in a Python loop over the target length
(which varies per call), at each step a coin from the state's numpy Generator decides
between the gold previous token (teacher forcing) and the model's own argmax
(`tf.argmax(logits, -1, output_type=tf.int32)`), the teacher-forcing probability decays
with an inverse-sigmoid schedule of a Python step counter (`k / (k + exp(step / k))`),
a per-step mask from the lengths, the loss a masked mean; how many steps were teacher
forced is counted in a Python dict, and the token accuracy is computed with numpy on
`.numpy()` predictions only every third call (a Python `if step % 3 == 0`).

janus (session 27, h4): agrees on all 15 calls; runs eagerly: the coin `s.gen.random()
< p_teacher` (p_teacher from the fed step counter) is a tensor test that ran more often
than while profiling, and the accuracy's `.numpy()` is a graph break; steady about
even with plain (~10% slower over 40 calls)."""
import collections
import math

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 15
VOCAB, EMB, UNITS, BOS = 9, 6, 12, 1

Batch = collections.namedtuple("Batch", ["src", "tgt", "lengths"])


class Seq2Seq(keras.Model):
    def __init__(self):
        super().__init__()
        self.emb = keras.layers.Embedding(VOCAB, EMB)
        self.encoder = keras.layers.GRU(UNITS, return_state=True)
        self.cell = keras.layers.GRUCell(UNITS)
        self.out = keras.layers.Dense(VOCAB)


class State:
    def __init__(self):
        self.model = Seq2Seq()
        self.opt = keras.optimizers.Adam(0.01)
        self.gen = np.random.default_rng(94)
        self.step = 0
        self.k = 5.0
        self.counts = {"forced": 0, "sampled": 0}
        self.accuracy = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(940 + i)
    n, length = 6, 3 + i % 4
    src = rng.randint(2, VOCAB, (n, length))
    lengths = rng.randint(2, length + 1, n)
    tgt = src[:, ::-1].copy()
    for r, l in enumerate(lengths):
        tgt[r, l:] = 0
    return (Batch(tf.constant(src, tf.int32), tf.constant(tgt, tf.int32),
                  tf.constant(lengths, tf.int32)),)


@JIT
def train_step(s, batch):
    s.step += 1
    p_teacher = s.k / (s.k + math.exp(s.step / s.k))
    m = s.model
    steps = batch.tgt.shape[1]
    mask = tf.sequence_mask(batch.lengths, steps, dtype=tf.float32)
    with tf.GradientTape() as tape:
        _, h = m.encoder(m.emb(batch.src))
        prev = tf.fill([tf.shape(batch.src)[0]], BOS)
        losses, preds = [], []
        for t in range(steps):
            out, states = m.cell(m.emb(prev), [h])
            h = states[0]
            logits = m.out(out)
            losses.append(tf.nn.sparse_softmax_cross_entropy_with_logits(batch.tgt[:, t], logits))
            pred = tf.argmax(logits, -1, output_type=tf.int32)
            preds.append(pred)
            if s.gen.random() < p_teacher:
                prev = batch.tgt[:, t]
                s.counts["forced"] += 1
            else:
                prev = pred
                s.counts["sampled"] += 1
        loss = tf.reduce_sum(tf.stack(losses, 1) * mask) / tf.reduce_sum(mask)
    variables = m.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    if s.step % 3 == 0:
        p = tf.stack(preds, 1).numpy()
        mk = mask.numpy().astype(bool)
        s.accuracy.append(round(float((p == batch.tgt.numpy())[mk].mean()), 4))
    return loss, p_teacher


STEP = train_step
