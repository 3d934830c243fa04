"""Lists of Python numbers of a fixed length fed whole, as one tensor (F388, F389:
graphgen/number_lists.py `fed_whole`).

A table of floats handed to `tf.constant` made janus feed every item as its own input:
generating the graph took ~30 s for 2000 floats and minutes and gigabytes for 2M. Now a
list whose items are fed (their values differ), or one past `janus.config.max_list_items`,
is fed as one tensor; one that must still be read item by item past that limit makes no
graph (the line runs plainly, and janus says why). Each test compares janus with plain
Python call by call (results, their types, the heap)."""
import warnings

import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.table = []
        self.seen = 0


def _floats(i, n):
    return np.random.RandomState(i).rand(n).astype(np.float32).tolist()


def _with_table(values):
    """A call entry setting the state's table first (each side its own state)."""
    def entry(s):
        s.table = values
        return (s, tf.constant(1.0))
    return entry


def whole_uses(s, x):
    t = tf.constant(s.table)
    c = tf.convert_to_tensor(s.table, tf.float64)
    s.seen = s.seen + 1
    return x + tf.reduce_sum(t), tf.reduce_max(c), sum(s.table), t.dtype.name


def test_a_float_table_changing_per_call_is_one_graph_fed_whole():
    calls = [_with_table(_floats(i, 300)) for i in range(8)]
    calls += [_with_table(_floats(i, 200 + 7 * i)) for i in range(8, 11)]  # (its length)
    jitted = janus.jit(whole_uses)
    stats = assert_same(whole_uses, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.generations <= 2 and stats.graph_calls >= 8, stats
    spec = jitted.specializations[-1]
    assert len(spec.inputs) <= 4, [source.expr for source, _, _ in spec.inputs]


def int_uses(s, x):
    ids = tf.constant(s.table)
    return tf.gather(x, ids % 5), ids.dtype.name, sum(s.table)


def test_an_int_table_is_fed_whole_as_int32():
    tables = [[int(v) for v in np.random.RandomState(i).randint(-9, 9, 40)] for i in range(10)]
    calls = [(lambda s, t=t: (setattr(s, "table", t), (s, tf.range(5.0)))[1])
             for t in tables]
    jitted = janus.jit(int_uses)
    stats = assert_same(int_uses, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.generations <= 2 and stats.graph_calls >= 7, stats
    assert len(jitted.specializations[-1].inputs) <= 4, stats


def mixed_uses(s, x):
    return x + tf.reduce_sum(tf.constant(s.table)), tf.constant(s.table).dtype.name


@pytest.mark.parametrize("make", [
    lambda i: [float(v) if k % 3 else int(v * 10) for k, v in enumerate(_floats(i, 30))],
    lambda i: [[v, 2 * v] for v in _floats(i, 20)],
    lambda i: [np.float32(v) for v in _floats(i, 25)],
    lambda i: [(v, v + 1.0) for v in _floats(i, 20)],
], ids=["mixed-int-float", "nested-lists", "numpy-floats", "pairs"])
def test_other_number_lists_give_python_results(make):
    calls = [_with_table(make(i)) for i in range(8)]
    stats = assert_same(mixed_uses, calls, make_state=State)
    assert stats.internal_errors == 0, stats


def unpacked(s, x):
    first, second, *rest = s.table
    return x * first + second, len(rest), tf.constant(s.table)


def test_a_fed_list_used_as_a_python_list_is_read_item_by_item():
    calls = [_with_table(_floats(i, 30)) for i in range(8)]
    jitted = janus.jit(unpacked)
    stats = assert_same(unpacked, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.graph_calls >= 4, stats
    assert any("item by item" in line for line in jitted.plan.describe()), \
        jitted.plan.describe()


def loop(s, x):
    acc = tf.zeros_like(x)
    for v in s.table:
        acc = acc + v * x
    return acc


@pytest.mark.parametrize("n", [10, 100, 1000])
def test_a_loop_over_a_float_list_changing_per_call(n):
    calls = [_with_table(_floats(i, n)) for i in range(7)]
    jitted = janus.jit(loop)
    stats = assert_same(loop, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.graph_calls >= 4, stats
    assert len(jitted.specializations[-1].inputs) <= 12, stats


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_big_table_generates_in_bounded_time():
    calls = [_with_table(_floats(i, 200_000)) for i in range(4)]
    jitted = janus.jit(whole_uses)
    stats = assert_same(whole_uses, calls, make_state=State, jitted=jitted)
    assert stats.time_generating < 10, stats  # (before: unbounded, > 15 minutes)
    assert stats.graph_calls >= 1 and stats.generations == 1, stats


def test_a_big_list_read_item_by_item_gives_up_loudly():
    def numpy_items(i):
        return [np.float32(v) for v in _floats(i, 5000)]  # (not fed whole: numpy floats)

    calls = [_with_table(numpy_items(i)) for i in range(4)]
    jitted = janus.jit(mixed_uses)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stats = assert_same(mixed_uses, calls, make_state=State, jitted=jitted)
    assert stats.time_generating < 10, stats
    said = " ".join(str(w.message) for w in caught) + janus.explain(jitted)
    assert "args[0].table" in said and "5000" in said and "max_list_items (1000)" in said, said


def test_max_list_items_is_an_int_option():
    with pytest.raises(TypeError, match="max_list_items"):
        janus.jit(loop, max_list_items="10")
    with pytest.raises(ValueError, match="max_list_items"):
        janus.jit(loop, max_list_items=0)
