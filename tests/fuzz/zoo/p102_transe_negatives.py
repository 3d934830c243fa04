"""Knowledge-graph embeddings (TransE): entity and relation embeddings as tf.Variables,
triples given as Python lists of (head, rel, tail) ints, negatives made on the host by
corrupting the head or the tail with a seeded `random.Random` owned by the state
(rejecting corruptions that are known true triples, a Python set of tuples), a
margin-ranking loss with `tf.nn.relu(margin + d_pos - d_neg)`, L1 or L2 distance
chosen by a config string, sparse gradients (IndexedSlices from `tf.gather`) applied by
plain SGD through `scatter_sub`, entity rows re-normalized after each step only for the
entities touched (`tf.unique` of the batch's ids, `scatter_update`), and a filtered
mean rank computed every 3 calls for one query with numpy on the host.

janus (session 28, h2): agrees on all 15 calls; no graph runs in 15 calls
(`random.Random.randrange` in `corrupt`, the batch's length changing, `.numpy()` every 3rd
call; segments give up after 4 generations): 15.5 s vs 2.2 s plain; over 30 calls still
slower than plain (about 45 ms vs 35 ms a call at the end)."""
import random

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 15
ENT, REL, DIM = 12, 3, 6
CONFIG = {"margin": 1.0, "norm": "L1", "lr": 0.05}
TRIPLES = [(h, r, (h * (r + 2) + 1) % ENT) for h in range(ENT) for r in range(REL)]


class State:
    def __init__(self):
        rng = np.random.RandomState(102)
        ent = rng.uniform(-1, 1, (ENT, DIM)).astype(np.float32)
        self.ent = tf.Variable(ent / np.linalg.norm(ent, axis=1, keepdims=True))
        self.rel = tf.Variable(rng.uniform(-1, 1, (REL, DIM)).astype(np.float32))
        self.known = set(TRIPLES)
        self.rand = random.Random(102)
        self.ranks = []
        self.step = 0
        self.rejected = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(1020 + i)
    picks = rng.choice(len(TRIPLES), 6 + i % 3, replace=False)
    return ([TRIPLES[k] for k in picks],)


def corrupt(s, triple):
    h, r, t = triple
    while True:
        e = s.rand.randrange(ENT)
        cand = (e, r, t) if s.rand.random() < 0.5 else (h, r, e)
        if cand not in s.known:
            return cand
        s.rejected += 1


def distance(h, r, t):
    diff = h + r - t
    if CONFIG["norm"] == "L1":
        return tf.reduce_sum(tf.abs(diff), -1)
    return tf.norm(diff, axis=-1)


@JIT
def train_step(s, batch):
    s.step += 1
    negs = [corrupt(s, tr) for tr in batch]
    pos = tf.constant(batch, tf.int32)
    neg = tf.constant(negs, tf.int32)
    with tf.GradientTape() as tape:
        def score(ids):
            return distance(tf.gather(s.ent, ids[:, 0]), tf.gather(s.rel, ids[:, 1]),
                            tf.gather(s.ent, ids[:, 2]))
        loss = tf.reduce_mean(tf.nn.relu(CONFIG["margin"] + score(pos) - score(neg)))
    g_ent, g_rel = tape.gradient(loss, [s.ent, s.rel])
    s.ent.scatter_sub(tf.IndexedSlices(CONFIG["lr"] * g_ent.values, g_ent.indices))
    s.rel.scatter_sub(tf.IndexedSlices(CONFIG["lr"] * g_rel.values, g_rel.indices))
    touched, _ = tf.unique(tf.reshape(tf.concat([pos[:, ::2], neg[:, ::2]], 0), [-1]))
    rows = tf.gather(s.ent, touched)
    s.ent.scatter_update(tf.IndexedSlices(tf.math.l2_normalize(rows, 1), touched))
    if s.step % 3 == 0:
        h, r, t = batch[0]
        d = distance(s.ent[h][None, :] + 0.0, s.rel[r][None, :], s.ent).numpy()
        filtered = [d[e] for e in range(ENT) if e == t or (h, r, e) not in s.known]
        s.ranks.append(int(np.sum(np.array(filtered) < d[t])) + 1)
    return loss


STEP = train_step
