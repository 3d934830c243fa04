"""Class: inside a graph, a variable updated earlier in the same call is read from its
local copy (janus/fallback/variables.py); that read must differentiate like eager's
read of the variable: a leaf with respect to what was assigned, watched as the variable.

Fuzz seed 401313 (long run, generator v8): `V0.assign_add(...)`, then a tape over a read
of V0: `tape.gradient(y, V0)` was None in the graph (TypeError in `0.01 * g4` on the
user's line); a program testing `if g is not None` silently skipped its update, and a
gradient to what was assigned (`W.assign(x * 2); y = W * 3`) was 6 where eager has None.
"""
import tensorflow as tf

from tests.differential import assert_same

X = [(tf.constant([1.0, 2.0]),)] * 5


class State:
    def __init__(self):
        self.V = tf.Variable([0.5, -0.25])
        self.W = tf.Variable(2.0)
        self.opt = tf.keras.optimizers.Adam(0.1)
        self.opt.build([self.V])


def assign_then_gradient(s, x):
    s.V.assign_add(x * 0.1)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * s.V)
    g = tape.gradient(y, s.V)
    s.V.assign_sub(0.01 * g)
    return y


def gradient_tested_for_none(s, x):
    s.V.assign(x)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(s.V * s.V)
    g = tape.gradient(y, s.V)
    if g is not None:
        s.W.assign_add(tf.reduce_sum(g))
    return s.W + 0.0


def assigned_value_is_a_leaf(s, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        s.W.assign(tf.reduce_sum(x) * 2.0)
        y = s.W * 3.0
    return tape.gradient(y, x), y


def two_sgd_steps(s, x):
    losses = []
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((x * s.V - 1.0) ** 2) + s.W * s.W
        gv, gw = tape.gradient(loss, [s.V, s.W])
        s.V.assign_sub(0.1 * gv)
        s.W.assign_sub(0.1 * gw)
        losses.append(loss)
    return losses


def two_adam_steps(s, x):
    losses = []
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((x * s.V - 1.0) ** 2)
        grads = tape.gradient(loss, [s.V])
        s.opt.apply_gradients(zip(grads, [s.V]))
        losses.append(loss)
    return losses


def test_gradient_of_a_variable_updated_earlier_in_the_graph():
    for fn in (assign_then_gradient, gradient_tested_for_none):
        stats = assert_same(fn, X, make_state=State)
        assert stats.graph_calls == 3, (fn.__name__, stats)


def test_a_variable_read_is_a_leaf_as_in_eager():
    stats = assert_same(assigned_value_is_a_leaf, X, make_state=State)
    assert stats.graph_calls == 3, stats


def test_two_optimizer_updates_in_one_graph():
    for fn in (two_sgd_steps, two_adam_steps):
        stats = assert_same(fn, X, make_state=State)
        assert stats.graph_calls == 3, (fn.__name__, stats)


class Table:
    def __init__(self):
        self.T = tf.Variable(tf.reshape(tf.range(15, dtype=tf.float32), [5, 3]) * 0.1)


def rows_read_after_an_update(s, i):
    """Fuzz v58 (seed 2100022): `tf.gather`, `tf.nn.embedding_lookup`, `sparse_read` and
    `gather_nd` read the variable's handle, not its local copy: after an update in the
    same call a graph read the old rows (eagerly: the new ones)."""
    s.T.assign_sub(tf.ones([5, 3]) * 0.5)
    with tf.GradientTape() as tape:
        rows = [tf.gather(s.T, i), tf.nn.embedding_lookup(s.T, [i, 2]), s.T.sparse_read(i)]
        loss = tf.add_n([tf.reduce_sum(r * r) for r in rows])
    g = tape.gradient(loss, s.T)  # (IndexedSlices: rows only)
    s.T.scatter_sub(tf.IndexedSlices(0.1 * g.values ** 2, g.indices))
    return rows + [s.T.gather_nd([[i, 1]]), s.T[i]], isinstance(g, tf.IndexedSlices)


def test_rows_gathered_from_a_variable_updated_earlier_in_the_call():
    stats = assert_same(rows_read_after_an_update, [(1,), (1,), (1,), (3,), (3,), (3,)],
                        make_state=Table)
    assert stats.graph_calls >= 2
