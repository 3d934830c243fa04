"""Length-bucketed training of a tiny attention encoder, written with generators and
itertools: variable-length sequences arrive as a Python list of tensors; the step sorts
them by length (`sorted(range(n), key=lambda j: lengths[j], reverse=True)`), groups them
with `itertools.groupby` on a bucket function, pads each bucket with `tf.pad` to its
longest member, builds the key mask from the Python lengths list, attends with
`tf.einsum('bqd,bkd->bqk', ...)`; a generator `minibatches(...)` yields (bucket,
padded, mask) triples and `itertools.islice` caps the number of buckets per call (a
Python int or None); per-bucket losses summed with `itertools.accumulate`, consecutive
losses compared with `itertools.pairwise`, `next(it, None)` on an exhausted iterator for
the "peek" of the next bucket, `zip(*pairs)` unzips, `enumerate(start=1)`; a
`collections.Counter` of bucket ids kept on the state.

janus (this session): agrees on all 18 calls; no whole-function graph ('generators are
not converted': `minibatches`), runs split at graph breaks with 3 graph segments (the
encoder forward, the variable updates, the append); steady state about even with eager."""
import collections
import itertools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
DIM = 8


class State:
    def __init__(self):
        rng = np.random.RandomState(84)
        self.wq = tf.Variable(rng.randn(DIM, DIM).astype(np.float32) * 0.2)
        self.wk = tf.Variable(rng.randn(DIM, DIM).astype(np.float32) * 0.2)
        self.wo = tf.Variable(rng.randn(DIM, 1).astype(np.float32) * 0.2)
        self.buckets = collections.Counter()
        self.drops = []
        self.lr = 0.05


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(840 + i)
    n = 4 + i % 4
    lengths = rng.randint(1, 9, n).tolist()
    seqs = [tf.constant(rng.randn(L, DIM).astype(np.float32)) for L in lengths]
    targets = tf.constant(rng.randn(n).astype(np.float32))
    cap = None if i % 3 == 0 else 2 + i % 2
    return seqs, targets, cap


def bucket_of(length):
    return 0 if length <= 3 else (1 if length <= 6 else 2)


def minibatches(seqs, order, lengths):
    for b, group in itertools.groupby(order, key=lambda j: bucket_of(lengths[j])):
        idx = list(group)
        longest = max(lengths[j] for j in idx)
        padded = tf.stack([tf.pad(seqs[j], [[0, longest - lengths[j]], [0, 0]]) for j in idx])
        mask = tf.constant([[t < lengths[j] for t in range(longest)] for j in idx])
        yield b, idx, padded, mask


def encode(s, x, mask):
    q, k = x @ s.wq, x @ s.wk
    scores = tf.einsum("bqd,bkd->bqk", q, k) / DIM ** 0.5
    scores = tf.where(mask[:, None, :], scores, -1e9)
    att = tf.nn.softmax(scores, axis=-1)
    h = tf.einsum("bqk,bkd->bqd", att, x)
    m = tf.cast(mask, tf.float32)[..., None]
    return tf.reduce_sum(h * m, 1) / tf.reduce_sum(m, 1)


@JIT
def train_step(s, seqs, targets, cap=None):
    lengths = [int(x.shape[0]) for x in seqs]
    order = sorted(range(len(seqs)), key=lambda j: lengths[j], reverse=True)
    it = minibatches(seqs, order, lengths)
    losses = []
    variables = [s.wq, s.wk, s.wo]
    for step, (b, idx, padded, mask) in enumerate(itertools.islice(it, cap), start=1):
        with tf.GradientTape() as tape:
            pred = tf.squeeze(encode(s, padded, mask) @ s.wo, -1)
            loss = tf.reduce_mean(tf.square(pred - tf.gather(targets, idx)))
        grads = tape.gradient(loss, variables)
        for g, v in zip(grads, variables):
            v.assign_sub(s.lr / step * g)
        s.buckets[b] += len(idx)
        losses.append(loss)
    leftover = next(it, None)
    skipped = 0 if leftover is None else len(leftover[1]) + sum(len(r[1]) for r in it)
    totals = list(itertools.accumulate(losses))
    drops = [a > c for a, c in itertools.pairwise(losses)]
    s.drops.append(tuple(drops))
    if not losses:
        return None
    firsts, lasts = zip(*[(x, y) for x, y in zip(losses, losses[1:])]) if len(losses) > 1 \
        else ((losses[0],), (losses[0],))
    return totals[-1], skipped, len(firsts), lasts[-1]


STEP = train_step
