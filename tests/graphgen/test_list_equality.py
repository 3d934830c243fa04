"""`decoded == answer` where `decoded` is a list of ints a loop grew until a tensor test
stopped it (a list whose length varies: graphgen/values.DynamicList): the graph computes
Python's answer (lengths, then items; `True == 1`; a list is never a tuple). Every test
compares janus with plain Python call by call."""
import tensorflow as tf

import janus
from janus.graphgen import tracer

from tests.differential import assert_same

W = tf.constant([[0.2, -0.9, 0.5, 0.1], [0.7, 0.3, -0.4, 0.8], [-0.6, 0.5, 0.9, -0.2],
                 [0.4, -0.1, 0.2, 0.6]])


class Counts:
    def __init__(self):
        self.matches = 0
        self.differ = 0
        self.last = []


def decode(x, steps=6):
    """Greedy ids until id 0 (a tensor test), as a seq2seq decoder's."""
    ids = []
    h = x
    for _ in range(steps):
        h = tf.tanh(tf.matmul(h, W))
        best = int(tf.argmax(h[0]))
        if best == 0:
            break
        ids.append(best)
    return ids


def compare(s, x, answer):
    ids = decode(x)
    s.last = ids
    if ids == answer:
        s.matches += 1
    if answer != ids:
        s.differ += 1
    return len(s.last), ids == [], ids != (1, 2)


def inputs(n):
    calls = []
    for i in range(n):
        x = tf.random.stateless_normal([1, 4], [i, 7])
        calls.append((x, decode(x) if i % 3 == 0 else [1, 2] if i % 3 == 1 else [True, 3]))
    return calls


def test_list_equality_of_a_loop_grown_list_runs_in_the_graph():
    stats = assert_same(compare, inputs(36), make_state=Counts)
    assert stats.graph_calls + stats.plain_calls >= 24  # (split before: refused)


def floats(s, x, answer):
    out = []
    h = x
    for _ in range(4):
        h = tf.tanh(tf.matmul(h, W))
        if tf.reduce_max(h) > 0.9:
            break
        out.append(float(tf.reduce_sum(h)))
    if out == answer:  # (floats: not converted; runs as plain Python does)
        s.matches += 1
    return s.matches


def test_lists_of_floats_are_compared_as_python_does():
    calls = [(tf.random.stateless_normal([1, 4], [i, 3]), [0.5]) for i in range(12)]
    assert_same(floats, calls, make_state=Counts)


# F367: a read the tracer does not see makes a read list look untouched (Tracer.untouched:
# DynamicList.__eq__ read the other list silently before `_int_items` told it); when the
# list grew, F356's untouched rung fed its length, the retrace failed (`==` of a list whose
# length varies) and that one failed generation ran the function eagerly for good. A plan
# that rung made whose generation fails is now not counted: the plan the other rungs make
# (the list fed as a stacked tensor) follows.

def test_a_read_list_taken_for_untouched_still_ends_in_graphs(monkeypatch):
    untouched = tracer.Tracer.untouched
    monkeypatch.setattr(tracer.Tracer, "untouched", lambda self: untouched(self) | frozenset(
        source.expr for source in self.copy_sources.values()))  # (every read unseen)
    jitted = janus.jit(compare)
    stats = assert_same(compare, inputs(36), make_state=Counts, jitted=jitted)
    assert jitted.unsupported is None, (stats, jitted.unsupported)
    assert stats.generation_failures == 0, stats  # (the failure was that rung's)
    assert "comparing (==)" in jitted.last_failure_reason  # (reported as before)
    assert stats.graph_calls + stats.plain_calls >= 24, stats  # (1 before)


class Tally:
    def __init__(self):
        self.hist = {"d": [], "g": []}


def tally(s, x, answer, grow):
    """`s.hist["g"] == answer`: a heap list and an argument's compared by Python's list
    `==`, which no hook of the tracer sees: both look untouched (F367 without a patch)."""
    if grow:
        s.hist["g"].append(3)
    s.hist["d"].append(1)
    return x * 2.0, s.hist["g"] == answer, len(s.hist["d"])


def test_lists_compared_unseen_by_the_tracer_keep_their_graphs():
    calls = [(tf.constant([float(i), 1.0]), [3] * (i // 4), i % 4 == 3) for i in range(40)]
    jitted = janus.jit(tally)
    stats = assert_same(tally, calls, make_state=Tally, jitted=jitted)
    assert jitted.unsupported is None, (stats, jitted.unsupported)
    assert stats.graph_calls + stats.plain_calls >= 30, stats  # (15 before)
