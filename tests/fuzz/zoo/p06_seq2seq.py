"""Seq2seq with teacher forcing: a GRUCell encoder and decoder, a Python loop over time
steps (the target length changes between calls), the loss averaged over steps."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
VOCAB, EMB, UNITS = 7, 4, 6


class Seq2Seq(keras.Model):
    def __init__(self):
        super().__init__()
        self.emb = keras.layers.Embedding(VOCAB, EMB)
        self.enc = keras.layers.GRUCell(UNITS)
        self.dec = keras.layers.GRUCell(UNITS)
        self.proj = keras.layers.Dense(VOCAB)


class State:
    def __init__(self):
        self.model = Seq2Seq()
        self.opt = keras.optimizers.RMSprop(0.01)
        self.loss_obj = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
        self.steps = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    src_len, tgt_len = 3 + i % 2, 2 + (i // 4) % 3
    return (tf.constant(rng.randint(1, VOCAB, (2, src_len))),
            tf.constant(rng.randint(1, VOCAB, (2, tgt_len))))


def masked_loss(loss_obj, real, pred):
    mask = tf.cast(tf.math.not_equal(real, 0), pred.dtype)
    return tf.reduce_mean(loss_obj(real, pred) * mask)


@JIT
def train_step(s, src, tgt):
    m = s.model
    with tf.GradientTape() as tape:
        state = [tf.zeros([src.shape[0], UNITS])]
        for t in range(src.shape[1]):
            _, state = m.enc(m.emb(src[:, t]), state)
        dec_input = tf.zeros([src.shape[0]], tf.int64)
        loss = 0.0
        for t in range(tgt.shape[1]):
            out, state = m.dec(m.emb(dec_input), state)
            logits = m.proj(out)
            loss += masked_loss(s.loss_obj, tgt[:, t], logits)
            dec_input = tgt[:, t]  # teacher forcing
        batch_loss = loss / int(tgt.shape[1])
    variables = m.trainable_variables
    grads = tape.gradient(loss, variables)
    s.opt.apply_gradients(zip(grads, variables))
    s.steps += 1
    return batch_loss


STEP = train_step
