"""Bag-of-words with ragged token ids (an embedding mean over a `tf.RaggedTensor` per
batch) and a `tf.SparseTensor` feature matrix multiplied with `tf.sparse.sparse_dense_matmul`."""
import numpy as np
import tensorflow as tf

GRAPHS = False  # (RaggedTensor / SparseTensor arguments: janus feeds no composite tensor to a graph yet, F182's Left)


class State:
    def __init__(self):
        rng = np.random.RandomState(54)
        self.emb = tf.Variable(rng.randn(10, 4).astype(np.float32) * 0.3)
        self.ws = tf.Variable(rng.randn(6, 4).astype(np.float32) * 0.3)
        self.out = tf.Variable(rng.randn(4, 1).astype(np.float32) * 0.3)


def make_state():
    return State()


def step(s, tokens, sparse, y):
    with tf.GradientTape() as tape:
        bag = tf.reduce_mean(tf.gather(s.emb, tokens), axis=1)
        h = tf.nn.relu(bag + tf.sparse.sparse_dense_matmul(sparse, s.ws))
        loss = tf.reduce_mean(tf.square(h @ s.out - y))
    vs = [s.emb, s.ws, s.out]
    for g, v in zip(tape.gradient(loss, vs), vs):
        v.assign_sub(0.1 * tf.convert_to_tensor(g))
    return loss, tokens.row_lengths()


def calls():
    rng = np.random.RandomState(55)
    out = []
    for _ in range(8):
        lengths = rng.randint(1, 4, size=3)
        tokens = tf.RaggedTensor.from_row_lengths(
            rng.randint(0, 10, size=int(lengths.sum())).astype(np.int32), lengths)
        idx = np.array([[0, 1], [1, 3], [2, 5]], dtype=np.int64)
        sparse = tf.SparseTensor(idx, rng.randn(3).astype(np.float32), [3, 6])
        out.append((tokens, sparse, tf.constant(rng.randn(3, 1).astype(np.float32))))
    return out
