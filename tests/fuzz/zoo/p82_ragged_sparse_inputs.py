"""A click-through model fed composite tensors as call arguments: the user's history a
`tf.RaggedTensor` of item ids (batch size and row lengths change between calls) embedded
with `tf.ragged.map_flat_values(tf.gather, ...)`, mean-pooled with
`tf.reduce_mean(..., axis=1)`, truncated to a Python `max_hist` with `ragged[:, -k:]`,
padded with `.to_tensor(default_value=...)`, rows filtered with `tf.ragged.boolean_mask`;
sparse multi-hot side features a `tf.SparseTensor` (sometimes None) multiplied with
`tf.sparse.sparse_dense_matmul`, normalized by `tf.sparse.reduce_sum`, combined with a
`tf.sparse.add` of a fixed SparseTensor; its `dense_shape` read in Python; the row
lengths turned into a Python list with `.numpy().tolist()` for a histogram dict.

janus (session 26, when written): diverged at call 4: the ragged local made in a
segment's graph came out of it as a RaggedTensor of symbolic tensors (its `numpy` method
taken for an eager constant's), and a returned SparseTensor was an internal error: fixed
(F182, composites leave a graph as their parts). A RaggedTensor or SparseTensor argument is
not fed to a graph yet: the calls run eagerly (they were guarded by identity, a graph per
call)."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
ITEMS = 30
FEATS = 12
DIM = 6


class State:
    def __init__(self):
        rng = np.random.RandomState(82)
        self.item_emb = tf.Variable(rng.randn(ITEMS, DIM).astype(np.float32) * 0.1)
        self.feat_w = tf.Variable(rng.randn(FEATS, DIM).astype(np.float32) * 0.1)
        self.out = tf.Variable(rng.randn(2 * DIM, 1).astype(np.float32) * 0.1)
        self.len_hist = {}
        self.losses = []
        self.lr = 0.1


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(820 + i)
    b = 3 + i % 3
    rows = [rng.randint(1, ITEMS, rng.randint(0 if i % 5 == 2 else 1, 7)).tolist()
            for _ in range(b)]
    hist = tf.ragged.constant(rows, dtype=tf.int32)
    if i % 4 == 3:
        feats = None
    else:
        idx = sorted({(r, int(c)) for r in range(b) for c in rng.randint(0, FEATS, 3)})
        feats = tf.sparse.SparseTensor(np.array(idx, np.int64),
                                       np.ones(len(idx), np.float32), [b, FEATS])
    labels = tf.constant(rng.randint(0, 2, (b, 1)).astype(np.float32))
    return hist, feats, labels, 4 if i < 9 else 3


@JIT
def step(s, hist, feats, labels, max_hist):
    batch = hist.nrows()
    hist = hist[:, -max_hist:]
    lengths = hist.row_lengths()
    for n in lengths.numpy().tolist():
        s.len_hist[n] = s.len_hist.get(n, 0) + 1
    nonempty = tf.ragged.boolean_mask(hist, hist > 0)
    padded = nonempty.to_tensor(default_value=0, shape=[None, max_hist])
    with tf.GradientTape() as tape:
        emb = tf.ragged.map_flat_values(tf.gather, s.item_emb, nonempty)
        pooled = tf.reduce_sum(emb, axis=1) / tf.maximum(
            tf.cast(lengths, tf.float32)[:, None], 1.0)
        if feats is not None:
            assert feats.dense_shape[1] == FEATS
            extra = tf.sparse.add(feats, tf.sparse.SparseTensor(
                [[0, 0]], [0.5], feats.dense_shape))
            side = tf.sparse.sparse_dense_matmul(extra, s.feat_w)
            side /= tf.maximum(tf.sparse.reduce_sum(extra, axis=1, keepdims=True), 1.0)
        else:
            side = tf.zeros([batch, DIM])
        logits = tf.concat([pooled, side], 1) @ s.out
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels, logits))
    variables = [s.item_emb, s.feat_w, s.out]
    grads = tape.gradient(loss, variables)
    for g, v in zip(grads, variables):
        if g is not None:
            v.assign_sub(s.lr * tf.convert_to_tensor(g))
    s.losses.append(loss)
    return loss, padded, tf.reduce_max(lengths)


STEP = step
