"""A word2vec-style skip-gram step with negative sampling and a hand-written sparse
optimizer: embeddings gathered from tf.Variables with `tf.gather`, so the tape returns
`tf.IndexedSlices` gradients (checked with `isinstance` in Python); duplicate ids merged
with `tf.unique` + `tf.math.unsorted_segment_sum`; a sparse Adagrad (an accumulator
variable updated with `scatter_nd_add`, the rows with `scatter_sub` of a new
`tf.IndexedSlices`) and a dense SGD fallback for a bias vector; the rows touched so far
counted in a Python set of ints (from `.numpy()`), a Python list of the number of
distinct rows per call."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
VOCAB = 20
DIM = 6
NEG = 3


class SkipGram(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(66)
        self.w_in = tf.Variable(rng.randn(VOCAB, DIM).astype(np.float32) * 0.1, name="w_in")
        self.w_out = tf.Variable(rng.randn(VOCAB, DIM).astype(np.float32) * 0.1, name="w_out")
        self.bias = tf.Variable(tf.zeros([VOCAB]), name="bias")


class SparseAdagrad:
    def __init__(self, variables, lr=0.5, eps=1e-6):
        self.lr, self.eps = lr, eps
        self.acc = {v.name: tf.Variable(tf.fill(v.shape, 0.1)) for v in variables}
        self.dense_steps = 0
        self.sparse_steps = 0

    def apply(self, grad, var):
        acc = self.acc[var.name]
        if isinstance(grad, tf.IndexedSlices):
            ids, pos = tf.unique(grad.indices)
            values = tf.math.unsorted_segment_sum(grad.values, pos, tf.shape(ids)[0])
            acc.scatter_nd_add(ids[:, None], values ** 2)
            scale = self.lr / tf.sqrt(tf.gather(acc, ids) + self.eps)
            var.scatter_sub(tf.IndexedSlices(scale * values, ids))
            self.sparse_steps += 1
            return ids
        acc.assign_add(grad ** 2)
        var.assign_sub(self.lr * grad / tf.sqrt(acc + self.eps))
        self.dense_steps += 1
        return None


class State:
    def __init__(self):
        self.model = SkipGram()
        self.opt = SparseAdagrad([self.model.w_in, self.model.w_out, self.model.bias])
        self.touched = set()
        self.distinct = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 5 + i % 3
    center = rng.randint(0, VOCAB, n)
    context = (center + rng.randint(1, 3, n)) % VOCAB
    negatives = rng.randint(0, VOCAB, (n, NEG))
    return (tf.constant(center, tf.int32), tf.constant(context, tf.int32),
            tf.constant(negatives, tf.int32))


@JIT
def train_step(s, center, context, negatives):
    m = s.model
    with tf.GradientTape() as tape:
        c = tf.gather(m.w_in, center)                         # [n, d]
        pos = tf.gather(m.w_out, context)                     # [n, d]
        neg = tf.gather(m.w_out, negatives)                   # [n, k, d]
        pos_logit = tf.reduce_sum(c * pos, -1) + tf.gather(m.bias, context)
        neg_logit = tf.einsum("nd,nkd->nk", c, neg) + tf.gather(m.bias, negatives)
        loss = -tf.reduce_mean(tf.math.log_sigmoid(pos_logit)) \
            - tf.reduce_mean(tf.reduce_sum(tf.math.log_sigmoid(-neg_logit), -1))
    grads = tape.gradient(loss, [m.w_in, m.w_out, m.bias])
    rows = [s.opt.apply(g, v) for g, v in zip(grads, [m.w_in, m.w_out, m.bias])]
    ids = rows[0]
    s.touched.update(int(k) for k in ids.numpy())
    s.distinct.append(len(ids))
    return loss, len(s.touched)


STEP = train_step
