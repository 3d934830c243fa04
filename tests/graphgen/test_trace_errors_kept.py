"""Two kinds of a trace's failures janus took for its own bugs (an internal error: the
call ran plainly with a warning; tests and the fuzz harness raise it):

* an exception the trace raised whose message formats a tensor (`assert ..., f"{loss}"`):
  reading its message after the trace asked a FormattedText, which refuses;
* a gradient `tf.IndexedSlices` an earlier call appended to a Python list: the write-back
  handed its eager components to the graph's dead-op search, which asked them for `.op`.

Every test compares janus with plain Python call by call. (PYTEST_DONT_REWRITE: the
plain side's `assert` must be Python's own.)"""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class Model:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3, 1]))
        self.seen = 0
        self.losses = []
        self.grads = []
        self.emb = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [6, 2]))


def checked(s, x):
    s.seen += 1
    assert tf.reduce_max(tf.abs(x)) < 6.0, f"outlier in batch {s.seen}: {tf.reduce_max(x):.2f}"
    loss = tf.reduce_mean(x @ s.w)
    s.w.assign_sub(0.01 * tf.ones([3, 1]))
    s.losses.append(float(loss))  # (a graph break: the function runs split)
    return loss


def test_an_assert_whose_message_formats_a_tensor():
    def call(i):
        x = np.random.RandomState(i).randn(4, 3).astype(np.float32)
        if i in (5, 6):
            x[0, 0] = 9.0
        return lambda s: (s, tf.constant(x))
    assert_same(checked, [call(i) for i in range(12)], make_state=Model)


def sparse_grads(s, ids):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(s.emb, ids) ** 2)
    g = tape.gradient(loss, s.emb)
    s.grads.append(g)
    return loss, len(s.grads)


def test_indexed_slices_kept_in_a_list_across_calls():
    calls = [lambda s, i=i: (s, tf.constant([i % 6, (i * 5) % 6])) for i in range(8)]
    stats = assert_same(sparse_grads, calls, make_state=Model)
    assert stats.graph_calls >= 3, stats
