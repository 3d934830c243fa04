"""A variable update inside a graph checks its operands as eager's op does
(fallback/update_checks.py): `w.assign_add(x)` with x of shape [1] on w of shape [3]
raises InvalidArgumentError eagerly, where janus's local copy `w + x` broadcast and the
graph changed w (a wrong answer); `w.assign(x)` of an incompatible shape, a
`scatter_nd_update` with too few updates, an `assign_add` of [3, 1] into [3] raised TF's
static check inside janus's commit (an internal error). Sliced assignment and scalar
`scatter_update` values broadcast eagerly, and still do."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.w = tf.Variable([1.0, -2.0, 3.0])
        self.m = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        self.s = tf.Variable(1.0)
        self.bank = tf.Variable(tf.zeros([0, 1]), shape=tf.TensorShape([None, 1]))


def adds(s, x, kind):
    if kind == "add":
        s.w.assign_add(x)
    elif kind == "sub_number":
        s.w.assign_sub(0.1)
    elif kind == "sub_scaled":
        s.w.assign_sub(0.1 * x)
    elif kind == "column":
        s.w.assign_add(tf.reshape(tf.concat([x, x, x], 0)[:3], [3, 1]))
    elif kind == "assign":
        s.w.assign(x)
    else:
        s.s.assign(x)
    return tf.reduce_sum(s.w) + s.s


def test_an_update_whose_value_only_broadcasts_fails_as_eagerly():
    good, bad = tf.constant([0.5, 0.25, 1.0]), tf.constant([0.5])
    calls = [(good, "add")] * 4 + [(bad, "add"), (good, "add"), (bad, "sub_number"),
                                   (good, "sub_scaled"), (tf.constant([[0.5, 0.25]]), "sub_scaled"),
                                   (bad, "column"), (bad, "assign"), (good, "assign"),
                                   (bad, "scalar"), (good, "scalar"), (good, "add")]
    stats = assert_same(adds, calls, State)
    assert stats.graph_calls >= 3, stats


def test_a_fed_value_of_varying_length_is_checked_in_the_graph():
    """x's length varies from call to call: the graph's x is [None], its shape checked
    when the graph runs (a [1] x broadcast into w before)."""
    calls = [(tf.constant([0.5] * n), kind) for n, kind in
             [(3, "add"), (2, "add"), (3, "add"), (4, "add"), (3, "add"), (1, "add"),
              (3, "add"), (1, "add"), (3, "add"), (1, "assign"), (3, "assign"),
              (1, "assign"), (3, "sub_scaled"), (1, "sub_scaled"), (3, "sub_scaled")]]
    stats = assert_same(adds, calls, State)
    assert stats.graph_calls >= 3, stats


def scatters(s, x, n, kind):
    if kind == "nd_update":
        s.m.scatter_nd_update([[0], [n % 3]], x)
    elif kind == "update_scalar":
        s.m.scatter_update(tf.IndexedSlices(tf.reduce_sum(x), [n % 3]))
    elif kind == "add_rows":
        s.m.scatter_add(tf.IndexedSlices(x, [0, n % 3]))
    elif kind == "slice":
        s.m[0:2].assign(x)
    else:
        s.bank.assign(tf.concat([s.bank, tf.reshape(x, [-1, 1])], 0)[-3:])
        s.bank.assign_add(tf.reshape(x, [-1, 1])[:1])
    return tf.reduce_sum(s.m) + tf.reduce_sum(s.bank)


def test_scatter_and_slice_updates_check_and_broadcast_as_eagerly():
    rows, row, few = tf.constant([[0.5, 1.0], [2.0, 3.0]]), tf.constant([[0.5, 1.0]]), \
        tf.constant([0.5])
    calls = [(rows, n, "nd_update") for n in range(4)] + [
        (row, 1, "nd_update"), (rows, 2, "nd_update"), (few, 0, "update_scalar"),
        (few, 1, "update_scalar"), (rows, 2, "update_scalar"), (few, 0, "update_scalar"),
        (rows, 1, "add_rows"), (row, 1, "add_rows"), (rows, 0, "add_rows"),
        (row, 0, "slice"), (rows, 0, "slice"), (tf.constant([[1.0, 2.0, 3.0]]), 0, "slice"),
        (row, 0, "slice"), (tf.constant([0.5]), 0, "bank"), (tf.constant([0.5, 1.0]), 0, "bank"),
        (tf.constant([0.25]), 0, "bank"), (tf.constant([0.5]), 0, "bank"),
        (tf.constant([0.25, 0.5, 1.0]), 0, "bank")]
    stats = assert_same(scatters, calls, State)
    assert stats.graph_calls >= 6, stats
