"""A tiny speech-recognition style model trained with `tf.nn.ctc_loss` (dense labels
padded with 0, their lengths given as a Python list `label_length`, `logits_time_major=False`, blank index
0) on variable-length frame batches, `logit_length` built from a Python list of ints;
every call also decodes the first utterance with a hand-written CTC prefix beam search:
beams kept in a Python dict mapping a prefix tuple to `[p_blank, p_non_blank]` (log
space, combined with a `logsumexp` helper using `math`), per-frame probabilities read
with `.numpy()`, pruning by `sorted(..., key=...)[:beam]`, the decoded string built from
an id-to-char dict; the greedy decode `tf.nn.ctc_greedy_decoder` is compared with it and
agreements counted in a Python Counter; the edit distance of the greedy decode is
computed with `tf.edit_distance` on SparseTensors.

janus (session 28, h2): DIVERGES (internal error) at call 5: `max(xs)` in `logsumexp`
with a fed float and `NEG_INF` (-inf): janus/graphgen/number_functions.extreme takes
`abs(int(-inf))` (OverflowError). With NEG_INF = -1e30 it agrees on all 12 calls (split,
segment graphs), steady about even with plain."""
import collections
import math

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 12
FEAT, VOCAB, BEAM = 5, 5, 3
CHARS = {1: "a", 2: "b", 3: "c", 4: "d"}
NEG_INF = -float("inf")


def logsumexp(*xs):
    m = max(xs)
    if m == NEG_INF:
        return NEG_INF
    return m + math.log(sum(math.exp(x - m) for x in xs))


class State:
    def __init__(self):
        self.rnn = keras.layers.GRU(12, return_sequences=True)
        self.proj = keras.layers.Dense(VOCAB)
        self.rnn.build((None, None, FEAT))
        self.proj.build((None, 12))
        self.opt = keras.optimizers.Adam(1e-2)
        self.agree = collections.Counter()
        self.decoded = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(980 + i)
    frames = 6 + i % 3
    b = 3
    x = rng.randn(b, frames, FEAT).astype(np.float32)
    lengths = [frames - k for k in range(b)]
    label_lengths = [int(rng.randint(1, 3)) for _ in range(b)]
    labels = np.zeros((b, 3), np.int32)
    for r, n in enumerate(label_lengths):
        labels[r, :n] = rng.randint(1, VOCAB, n)
    return tf.constant(x), tf.constant(labels), lengths, label_lengths


def prefix_beam(logp):
    beams = {(): [0.0, NEG_INF]}
    for t in range(logp.shape[0]):
        nxt = collections.defaultdict(lambda: [NEG_INF, NEG_INF])
        for prefix, (pb, pnb) in beams.items():
            for c in range(VOCAB):
                p = float(logp[t, c])
                if c == 0:
                    e = nxt[prefix]
                    e[0] = logsumexp(e[0], pb + p, pnb + p)
                    continue
                ext = prefix + (c,)
                e = nxt[ext]
                if prefix and prefix[-1] == c:
                    e[1] = logsumexp(e[1], pb + p)
                    same = nxt[prefix]
                    same[1] = logsumexp(same[1], pnb + p)
                else:
                    e[1] = logsumexp(e[1], pb + p, pnb + p)
        beams = dict(sorted(nxt.items(), key=lambda kv: logsumexp(*kv[1]), reverse=True)[:BEAM])
    best = max(beams.items(), key=lambda kv: logsumexp(*kv[1]))[0]
    return "".join(CHARS[c] for c in best)


@JIT
def train_step(s, x, labels, lengths, label_lengths):
    with tf.GradientTape() as tape:
        logits = s.proj(s.rnn(x))
        loss = tf.reduce_mean(tf.nn.ctc_loss(
            labels, logits, label_length=tf.constant(label_lengths),
            logit_length=tf.constant(lengths), logits_time_major=False, blank_index=0))
    variables = s.rnn.trainable_variables + s.proj.trainable_variables
    s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    logp = tf.nn.log_softmax(logits[0, :lengths[0]], -1).numpy()
    beam_text = prefix_beam(logp)
    (greedy,), _ = tf.nn.ctc_greedy_decoder(
        tf.transpose(logits, [1, 0, 2]), tf.constant(lengths), blank_index=0)
    first = tf.sparse.to_dense(greedy)[0].numpy().tolist()
    greedy_text = "".join(CHARS.get(c, "") for c in first)
    s.agree["same" if greedy_text == beam_text else "differ"] += 1
    s.decoded.append(beam_text)
    truth = tf.sparse.from_dense(labels)
    dist = tf.edit_distance(tf.cast(greedy, tf.int32), truth)
    return loss, tf.reduce_mean(dist)


STEP = train_step
