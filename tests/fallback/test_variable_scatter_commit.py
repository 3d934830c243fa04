"""A scatter of a variable's own value that nothing reads afterwards is committed as the
scatter itself (fallback/variables.py `Scattered`): its rows change, the table is not
copied; anything else keeps the whole-copy commit. Compared with plain Python."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Table:
    def __init__(self):
        self.emb = tf.Variable(np.arange(20, dtype=np.float32).reshape(10, 2))
        self.w = tf.Variable([1.0, 2.0])
        self.seen = []


def sgd_step(s, ids, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(s.emb, ids) * s.w)
    ge, gw = tape.gradient(loss, [s.emb, s.w])
    s.emb.scatter_sub(tf.IndexedSlices(lr * ge.values, ge.indices, ge.dense_shape))
    s.w.assign_sub(lr * gw)
    return loss


def read_after(s, ids, lr):
    s.emb.scatter_add(tf.IndexedSlices(tf.ones([tf.size(ids), 2]) * lr, ids))
    return tf.reduce_sum(s.emb) + tf.reduce_sum(tf.gather(s.emb, ids))


def twice(s, ids, lr):
    s.emb.scatter_sub(tf.IndexedSlices(tf.ones([tf.size(ids), 2]) * lr, ids))
    s.emb.scatter_add(tf.IndexedSlices(tf.ones([1, 2]), tf.constant([0])))
    return lr * 2.0


def bias_then_scatter(s, ids, lr):
    s.w.assign_add([lr, lr])  # (plain Python updates it, then the scatter raises)
    s.emb.scatter_sub(tf.IndexedSlices(tf.ones([tf.size(ids), 2]) * lr, ids))
    s.seen.append(1)
    return lr


def _calls():
    good = [(tf.constant([1, 3, 3]), tf.constant(0.1)), (tf.constant([0, 9]), tf.constant(0.2))]
    bad = (tf.constant([2, 12]), tf.constant(0.1))  # (past the table's 10 rows)
    return [good[i % 2] for i in range(6)] + [bad] + [good[i % 2] for i in range(4)]


def _scatter_ops(fn, state_type, calls) -> set:
    jitted, state = janus.jit(fn), state_type()
    for args in calls:
        try:
            jitted(state, *args)
        except tf.errors.InvalidArgumentError:
            pass
    return {op.type for spec in jitted.specializations
            for op in spec.concrete.graph.get_operations()
            if "Scatter" in op.type or op.type == "AssignVariableOp"}


def test_an_embedding_sgd_step_scatters_its_rows_and_matches_plain():
    stats = assert_same(sgd_step, _calls(), Table)
    assert stats.graph_calls >= 6
    ops = _scatter_ops(sgd_step, Table, _calls()[:6])
    assert "ResourceScatterSub" in ops  # (the table's rows, in place)


def test_a_table_read_after_its_scatter_is_committed_whole_and_matches_plain():
    stats = assert_same(read_after, _calls(), Table)
    assert stats.graph_calls >= 6
    assert "ResourceScatterAdd" not in _scatter_ops(read_after, Table, _calls()[:6])


def test_two_scatters_and_a_bad_index_match_plain():
    assert_same(twice, _calls(), Table)
    assert_same(bias_then_scatter, _calls(), Table)
