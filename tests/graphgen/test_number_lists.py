"""Lists of Python numbers whose length changes per call (graphgen/number_lists.py).

An edge list of `(src, dst)` int pairs, per-example weights as Python floats: janus
guarded every item and the length, a graph per call until the specialization limit, then
plain Python. Such a list is now fed as one tensor. Each test compares janus with plain
Python call by call (results, their types, the heap)."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import number_lists
from tests.differential import assert_same


class State:
    def __init__(self):
        self.seen = 0
        self.by_size = {}


def _edges(i):
    rng = np.random.RandomState(i)
    n = 2 + i % 5
    return [(int(a), int(b)) for a, b in rng.randint(0, 6, (n, 2))]


def _h(i):
    return tf.constant(np.random.RandomState(100 + i).randn(6, 3), tf.float32)


def message_pass(s, h, edge_list, scale):
    edges = tf.constant(edge_list, dtype=tf.int32)
    src, dst = edges[:, 0], edges[:, 1]
    m = tf.gather(h, src) * tf.gather(h, dst)
    s.seen += len(edge_list)
    total = 0.0
    for a, b in edge_list:
        total = total + a * scale - b
    return tf.reduce_sum(m), total, tf.constant(edge_list[1:])


def test_an_edge_list_of_varying_length_is_one_graph():
    jitted = janus.jit(message_pass)
    stats = assert_same(message_pass, [(_h(i), _edges(i), 0.5) for i in range(14)],
                        make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.generations <= 3 and stats.graph_calls + stats.plain_calls >= 9, stats
    assert any("args[2] of varying length" in line for line in jitted.plan.describe())


def weighted(xs, weights, flags):
    w = tf.constant(weights)
    keep = tf.convert_to_tensor(flags)
    picked = tf.boolean_mask(xs[: len(weights)] * w, keep)
    heavy = tf.constant(weights, tf.float64)
    return tf.reduce_sum(picked), heavy, w.dtype.name


def _weights(i):
    n = 2 + i % 4
    return [0.1 * (k + 1) + i for k in range(n)], [k % 2 == 0 for k in range(n)]


def test_floats_and_bools_convert_as_tf_converts_them():
    calls = [(tf.range(8, dtype=tf.float32),) + _weights(i) for i in range(12)]
    jitted = janus.jit(weighted)
    stats = assert_same(weighted, calls, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.generations <= 3 and stats.graph_calls + stats.plain_calls >= 6, stats
    plan = jitted.plan.describe()
    assert any("args[1] of varying" in line for line in plan), plan
    assert any("args[2] of varying" in line for line in plan), plan


def test_a_float_beyond_float32_raises_as_in_python():
    calls = [(tf.range(8, dtype=tf.float32),) + _weights(i) for i in range(8)]
    calls.append((tf.range(8, dtype=tf.float32), [1.0, 1e300, 2.0], [True, False, True]))
    calls.append((tf.range(8, dtype=tf.float32), [1.0, 2.0], [True, False]))
    stats = assert_same(weighted, calls)  # (the call with 1e300 raises ValueError in both)
    assert stats.internal_errors == 0, stats


def test_items_outside_the_layout_fail_the_guard():
    calls = [(tf.range(8, dtype=tf.float32),) + _weights(i) for i in range(8)]
    calls += [(tf.range(8, dtype=tf.float32), [1, 2, 3], [True, True, False]),
              (tf.range(8, dtype=tf.float32), [1.0, True], [True, True]),
              (tf.range(8, dtype=tf.float32), [0.5, 0.25, 0.125], [1, 0, 1])]
    stats = assert_same(weighted, calls)
    assert stats.internal_errors == 0, stats


def logged(s, x, ids, n):
    y = tf.reduce_sum(tf.gather(x, tf.constant(ids)))
    s.by_size.setdefault(n, []).append(y)
    return y


def test_lists_under_every_key_of_a_dict_are_only_appended_to():
    calls = [(tf.range(10.0), [k % 10 for k in range(i % 4 + 1)], 2 + i % 3)
             for i in range(24)]
    jitted = janus.jit(logged)
    stats = assert_same(logged, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.graph_calls >= 12, stats
    assert any("by_size[*] is only appended to" in line for line in jitted.plan.describe())


def sorted_ids(ids):
    return tf.constant(sorted(ids)) * 2  # (not converted: the plan retreats)


def test_a_use_janus_does_not_convert_retreats_to_guarded_items():
    stats = assert_same(sorted_ids, [([3, 1, 2][: 1 + i % 3],) for i in range(10)])
    assert stats.internal_errors == 0, stats


@pytest.mark.parametrize("value, layout", [
    ([1, 2], ("int", None)), ([(1, 2)], ("int", 2)), ([0.5], ("float", None)),
    ([True], ("bool", None)), ([], None), ([1, 2.0], None), ([True, 1], None),
    ([(1, 2), (3,)], None), ([2 ** 31], None), ([np.int64(1)], None), ([(1, 2.0)], None)])
def test_layouts(value, layout):
    assert number_lists.layout_of(value) == layout


TABLE = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])


def handed_to_ops(ids, ws, flags):
    return (tf.gather(TABLE, ids), tf.reduce_sum(ws), tf.one_hot(ids, 4),
            tf.convert_to_tensor(ids, dtype_hint=tf.float32),
            tf.convert_to_tensor(ws, dtype_hint=tf.int32),  # (floats: TF keeps float32)
            tf.reduce_any(flags), tf.cast(flags, tf.float32), sum(ids), sum(ws))


def test_lists_handed_to_tf_ops_convert_as_tf_converts_them():
    calls = [([k % 4 for k in range(1 + i % 4)], [0.5 * k + i for k in range(2 + i % 3)],
              [k % 2 == 0 for k in range(1 + i % 3)]) for i in range(12)]
    jitted = janus.jit(handed_to_ops)
    stats = assert_same(handed_to_ops, calls, jitted=jitted)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert sum("of varying length" in line for line in jitted.plan.describe()) == 3
