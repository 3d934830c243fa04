"""Competence-based curriculum learning for a GRU sequence classifier (is the sum of the
sequence positive?): the state holds a Python `competence` in [0, 1] that decides the
maximum sequence length and the easy/hard mix of each batch; the step builds the batch
itself from Python pools of numpy examples (`easy[:k] + hard[:m]`, padded with numpy
to the longest length and masked), and advances the competence when a running average of
the loss drops below a threshold (`if ema < s.threshold:` on a tensor, a Python
side effect in the branch), otherwise counts a patience that, when exhausted, lowers
the learning rate (a keras optimizer's `learning_rate.assign`). Phase changes are
logged into a list of strings with f-strings; the loss EMA is a tf.Variable.

janus (session 27, h4): agrees on all 18 calls; runs eagerly: the batch is built with
numpy in place (`x[r, :length, 0] = seq`, a graph break) and the rest of the step keeps
changing what it specializes on (the padded length, the competence): no steady graph
after 4 generations; over 40 calls steady even with plain (the generations cost ~2x in
the first 18)."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
MAX_LEN = 10
BATCH = 8


def make_pool(seed, n=64):
    rng = np.random.RandomState(seed)
    pool = []
    for _ in range(n):
        length = rng.randint(2, MAX_LEN + 1)
        x = rng.randn(length).astype(np.float32)
        pool.append((x, float(x.sum() > 0), length))
    pool.sort(key=lambda e: e[2])
    return pool


class State:
    def __init__(self):
        self.gru = keras.layers.GRU(8)
        self.head = keras.layers.Dense(1)
        self.opt = keras.optimizers.RMSprop(0.01)
        self.ema = tf.Variable(1.0)
        self.pool = make_pool(90)
        self.competence = 0.2
        self.threshold = 0.69
        self.patience = 0
        self.log = []
        self.cursor = 0

    def variables(self):
        return self.gru.trainable_variables + self.head.trainable_variables


def setup():
    return State()


def inputs(i):
    return (i, 0.1 if i % 5 else 0.2)


def build_batch(s):
    limit = max(2, int(len(s.pool) * s.competence))
    n_hard = BATCH // 4 if s.competence > 0.5 else 0
    idx = [(s.cursor + k) % limit for k in range(BATCH - n_hard)]
    idx += [len(s.pool) - 1 - k for k in range(n_hard)]
    s.cursor = (s.cursor + BATCH) % limit
    examples = [s.pool[j] for j in idx]
    longest = max(e[2] for e in examples)
    x = np.zeros((len(examples), longest, 1), np.float32)
    mask = np.zeros((len(examples), longest), bool)
    for r, (seq, _, length) in enumerate(examples):
        x[r, :length, 0] = seq
        mask[r, :length] = True
    y = np.array([[e[1]] for e in examples], np.float32)
    return tf.constant(x), tf.constant(mask), tf.constant(y)


@JIT
def train_step(s, step, momentum):
    x, mask, y = build_batch(s)
    with tf.GradientTape() as tape:
        logits = s.head(s.gru(x, mask=mask))
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, logits))
    grads = tape.gradient(loss, s.variables())
    s.opt.apply_gradients(zip(grads, s.variables()))
    s.ema.assign((1 - momentum) * s.ema + momentum * loss)
    if s.ema < s.threshold:
        s.competence = min(1.0, s.competence + 0.15)
        s.patience = 0
        s.log.append(f"step {step}: competence -> {s.competence:.2f}")
    else:
        s.patience += 1
        if s.patience >= 4:
            s.opt.learning_rate.assign(s.opt.learning_rate * 0.5)
            s.patience = 0
            s.log.append(f"step {step}: lr halved")
    return loss, x.shape[1]


STEP = train_step
