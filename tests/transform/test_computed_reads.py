"""A tensor's value read where it stands and computed with (`s.correct +=
int(tf.reduce_sum(hits))`, `total = total + float(loss)`, `-float(t) * 2`): no graph
break (transform/breaks.py `_computed_with`, F461). Before, each split the step at that
line: an evaluation loop counting its hits got no graph at all. The graph computes the
fed Python number (graphgen/exact_numbers.py) or numpy scalar (graphgen/host_scalars.py)
as Python and numpy do. Every test compares janus with plain Python (values, their
types, the heap) and asserts the graphs ran."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus import source
from janus.transform import breaks
from tests.differential import assert_same


class Tally:
    def __init__(self, start=0):
        self.w = tf.Variable([0.5, -1.0, 2.0])
        self.correct = start
        self.seen = 0
        self.total = 0.0
        self.acc = 0.0
        self.stats = {"loss": 0.0, "hits": 0}
        self.hist = []


def counted(s, x, y):
    s.correct += int(tf.reduce_sum(tf.cast(x > y, tf.int32)))
    s.seen += int(x.shape[0])
    s.acc += float(tf.reduce_mean(x)) / s.seen
    return s.correct / s.seen


def summed(s, x, y):
    loss = tf.reduce_sum(x * s.w)
    total = s.total
    total = total + float(loss) * 2
    s.total = total - float(tf.reduce_max(y)) ** 2
    return total, -float(loss)


def in_a_dict(s, x, y):
    s.stats["loss"] += float(tf.reduce_sum(x))
    s.stats["hits"] += int(tf.argmax(x)) // 2 + int(tf.argmin(y)) % 2
    s.hist.append(float(tf.reduce_min(x)))  # (appended: kept already, F456)
    return s.stats["loss"]


def named(s, x, y):
    n = int(tf.reduce_sum(tf.cast(x > 0.0, tf.int32)))
    s.correct += n  # (a named read's augmented assignment)
    return n


def _calls(n=8, seed=0):
    rng = np.random.RandomState(seed)
    return [(tf.constant(rng.randn(3).astype(np.float32)),
             tf.constant(rng.randn(3).astype(np.float32))) for _ in range(n)]


@pytest.mark.parametrize("step", [counted, summed, in_a_dict, named],
                         ids=["augmented counts", "reads in arithmetic",
                              "augmented items and integer division",
                              "a named read's augmented assignment"])
def test_reads_computed_with_stay_in_the_graph(step):
    stats = assert_same(step, _calls(), make_state=Tally)
    assert stats.graph_calls >= 5 and stats.fallback_calls == 0, stats


def test_counts_past_a_fed_int_s_range_are_python_s():
    """A count beyond int32 (a fed int's guard) and a float count: Python's ints and the
    float an int added to a float gives."""
    assert_same(counted, _calls(), make_state=lambda: Tally(2 ** 40))
    assert_same(counted, _calls(), make_state=lambda: Tally(0.5))


def numpy_sums(s, x, y):
    total = 0.0
    total += tf.reduce_sum(x).numpy()  # (a numpy float32 from here on, as in numpy)
    total += tf.reduce_max(y).numpy() * 2.0
    s.hist.append(total)
    return total


def test_numpy_scalars_summed_in_a_call_stay_in_the_graph():
    stats = assert_same(numpy_sums, _calls(), make_state=Tally)
    assert stats.graph_calls >= 5, stats


def numpy_accumulated(s, x, y):
    s.total += tf.reduce_sum(x * s.w).numpy()  # (an np.float32 on the heap after a call)
    s.seen += (x > y).numpy().sum()  # (a vector's numpy method: numpy work)
    return s.total


def test_numpy_values_accumulated_on_the_heap_are_python_s():
    assert_same(numpy_accumulated, _calls(), make_state=Tally)


def test_arithmetic_with_numpy_work_is_still_a_break():
    def with_numpy(x, s):
        a = x.numpy() * np.ones(2)         # numpy arithmetic with an array
        s.total += float(x) + np.sum(s.w)  # ... with a numpy call's value
        s.seen -= x.numpy()[0]             # indexed first
        return a

    node, _ = source.parse_function(with_numpy)
    assert not breaks.in_graph_reads(node, with_numpy.__globals__)
    assert set(breaks.static_breaks(node, with_numpy.__globals__)) >= {
        node.body[0].lineno, node.body[2].lineno}


def split_count(s, x, y):
    s.correct += int(tf.reduce_sum(tf.cast(x > y, tf.int32)))
    s.hist.append(np.float64(tf.reduce_sum(x).numpy()))  # numpy work: the break
    s.total = s.total * 0.5 + float(tf.reduce_max(y)) ** 2
    return s.correct


def test_in_a_split_function_the_count_is_no_break(monkeypatch):
    from janus.fallback import trial, whole_trial
    from janus.transform import segments
    # (every stretch a graph whatever its size: tests/fallback/conftest.py `any_size`)
    monkeypatch.setattr(whole_trial, "MAX_TRIALS", 0)
    monkeypatch.setattr(segments, "TINY_OPS", 0)
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)
    monkeypatch.setattr(trial, "PAYS", float("inf"))
    jitted = janus.jit(split_count, segments=True)
    stats = assert_same(split_count, _calls(), make_state=Tally, jitted=jitted)
    node, _ = source.parse_function(split_count)
    assert set(jitted.segmented.breaks) == {node.body[1].lineno}, jitted.segmented.breaks
    assert stats.segment_graph_calls > 0, stats
