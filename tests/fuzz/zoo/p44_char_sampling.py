"""Character-level RNN text sampling with a temperature: a vocabulary dict built from a
string, a GRU cell stepped in a Python loop, the next character drawn with
tf.random.stateless_categorical on logits / temperature, `.numpy()` ints mapped back to
characters and joined with ''.join, the string returned alongside a tensor (the mean
log-probability); a sample printed every few calls, a teacher-forced training step
between samples."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
TEXT = "the quick brown fox jumps over the lazy dog"
CHARS = sorted(set(TEXT))
CHAR2IDX = {c: i for i, c in enumerate(CHARS)}
IDX2CHAR = {i: c for c, i in CHAR2IDX.items()}
VOCAB = len(CHARS)


class CharRNN(keras.Model):
    def __init__(self, units=12):
        super().__init__()
        self.units = units
        self.emb = keras.layers.Embedding(VOCAB, 6)
        self.cell = keras.layers.GRUCell(units)
        self.out = keras.layers.Dense(VOCAB)

    def step(self, char_ids, h):
        y, states = self.cell(self.emb(char_ids), [h])
        return self.out(y), states[0]


class State:
    def __init__(self):
        self.model = CharRNN()
        self.opt = keras.optimizers.Adam(0.03)
        self.samples = []
        self.calls = 0


def setup():
    return State()


def inputs(i):
    start = (i * 5) % (len(TEXT) - 8)
    prime = TEXT[start:start + 3]
    return (prime, [0.5, 1.0, 1.5][i % 3], 6 + i % 3, i)


@JIT
def sample_and_train(s, prime, temperature, length, seed):
    m = s.model
    s.calls += 1
    # teacher-forced training on a window of the text
    window = [CHAR2IDX[c] for c in TEXT[seed % 20: seed % 20 + 8]]
    ids = tf.constant([window])
    h = tf.zeros([1, m.units])
    with tf.GradientTape() as tape:
        loss = 0.0
        for t in range(len(window) - 1):
            logits, h = m.step(ids[:, t], h)
            loss += tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(ids[:, t + 1], logits))
        loss = loss / (len(window) - 1)
    grads = tape.gradient(loss, m.trainable_variables)
    s.opt.apply_gradients(zip(grads, m.trainable_variables))
    # sampling
    h = tf.zeros([1, m.units])
    for c in prime[:-1]:
        _, h = m.step(tf.constant([CHAR2IDX[c]]), h)
    current = tf.constant([CHAR2IDX[prime[-1]]])
    out_chars, log_probs = [], []
    for k in range(length):
        logits, h = m.step(current, h)
        scaled = logits / temperature
        nxt = tf.random.stateless_categorical(scaled, 1, seed=[seed, k], dtype=tf.int32)[:, 0]
        log_probs.append(tf.gather(tf.nn.log_softmax(scaled)[0], nxt[0]))
        out_chars.append(IDX2CHAR[int(nxt.numpy()[0])])
        current = nxt
    text = prime + "".join(out_chars)
    s.samples.append(text)
    if s.calls % 4 == 0:
        print(f"[T={temperature}] {text!r} loss={float(loss):.3f}")
    return text, tf.reduce_mean(tf.stack(log_probs))


STEP = sample_and_train
