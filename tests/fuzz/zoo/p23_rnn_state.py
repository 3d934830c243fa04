"""A character-level LSTM kept stateful across calls in a Python attribute (truncated
BPTT), the state reset when a document ends (a Python flag), perplexity returned."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
VOCAB = 6


class CharLM(keras.Model):
    def __init__(self):
        super().__init__()
        self.emb = keras.layers.Embedding(VOCAB, 4)
        self.cell = keras.layers.LSTMCell(8)
        self.out = keras.layers.Dense(VOCAB)


class State:
    def __init__(self):
        self.model = CharLM()
        self.opt = keras.optimizers.SGD(0.5)
        self.hidden = None
        self.docs = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randint(0, VOCAB, (2, 5))), i % 5 == 4)


@JIT
def step(s, chunk, end_of_doc):
    m = s.model
    if s.hidden is None:
        s.hidden = [tf.zeros([2, 8]), tf.zeros([2, 8])]
    state = s.hidden
    with tf.GradientTape() as tape:
        losses = []
        for t in range(chunk.shape[1] - 1):
            h, state = m.cell(m.emb(chunk[:, t]), state)
            logits = m.out(h)
            losses.append(tf.nn.sparse_softmax_cross_entropy_with_logits(chunk[:, t + 1], logits))
        loss = tf.reduce_mean(tf.stack(losses))
    grads = tape.gradient(loss, m.trainable_variables)
    s.opt.apply_gradients(zip(grads, m.trainable_variables))
    s.hidden = [tf.stop_gradient(v) for v in state]
    if end_of_doc:
        s.hidden = None
        s.docs += 1
    return tf.exp(loss)


STEP = step
