"""RaggedTensors and SparseTensors a traced call makes leave the graph as their parts and
are rebuilt after the run (fallback/heap.py `skeleton`, F182, zoo p82): a RaggedTensor's
`numpy` attribute was taken for an eager constant's, so a graph handed back the trace's
symbolic RaggedTensor; a SparseTensor was an internal error (the calls ran plainly). Each
test compares janus with plain Python call by call."""
import tensorflow as tf

import janus
from tests.differential import assert_same


class Holder:
    def __init__(self):
        self.kept = []


def ragged_made(s, x):
    flat = tf.reshape(x, [-1])
    r = tf.RaggedTensor.from_row_splits(flat * 2.0 + 1.0, [0, 1, tf.size(flat)])
    s.kept.append(r.row_lengths())
    return r, r.flat_values[0]


def sparse_made(s, x):
    sp = tf.sparse.from_dense(tf.reshape(x, [1, -1]) * 2.0)
    s.last = sp
    return tf.sparse.map_values(tf.multiply, sp, 3.0)


def _calls():
    return [(tf.constant([1.0, 0.0, float(i)]),) for i in range(6)]


def test_a_ragged_tensor_made_in_the_graph_is_returned_and_kept_with_its_values():
    assert assert_same(ragged_made, _calls(), Holder).graph_calls > 0


def test_a_sparse_tensor_made_in_the_graph_is_returned_and_kept():
    assert assert_same(sparse_made, _calls(), Holder).graph_calls > 0


def last_lengths(x, k):
    return x[:, -k:].row_lengths()


def test_a_ragged_argument_runs_eagerly_not_a_graph_per_call():
    """(Guarded by identity, each call made a graph of its own until the limit.)"""
    calls = [(tf.ragged.constant([[1, 2, 3], [4], [5, 6, 7, 8]]), 2) for _ in range(8)]
    jitted = janus.jit(last_lengths)
    stats = assert_same(last_lengths, calls, jitted=jitted)
    assert stats.generations == 0, stats
