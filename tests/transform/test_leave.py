"""janus/transform/leave.py: the rewrite of an `if` that leaves a loop kept Python, golden
(the split renders as the module docstring says) and differential (janus with its graphs
kept vs plain Python, tests/differential.py)."""
import ast

import gast
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus import source
from janus.transform import breaks, leave, segments
from tests.differential import assert_same


class State:
    def __init__(self):
        self.v = tf.Variable([1.0, -1.0])
        self.rng = np.random.default_rng(0)
        self.log = []


def walk(s, xs, limit):
    total = tf.constant(0.0)
    for x in xs:
        step = float(s.rng.normal())                   # graph break
        y = tf.reduce_sum(s.v * x) * step
        if y > limit:
            s.log.append("left")
            break
        else:
            total = total * 0.5
        s.v.assign_add(tf.ones([2]) * y * 0.1)
        total = total + tf.tanh(y)
    return total


GOLDEN_OUTER = """def walk(s, xs, limit):
    total = tf.constant(0.0)
    for x in xs:
        step = float(s.rng.normal())
        janus_leave, total = janus_segs[0](limit, s, step, total, x)
        if janus_leave:
            janus_jump, = janus_segs[1](s)
            if janus_jump == 1:
                break
    return total"""

GOLDEN_SEGMENT = """def walk__segment_0(limit, s, step, total, x):
    y = tf.reduce_sum(s.v * x) * step
    janus_leave = y > limit
    if janus_leave:
        pass
    else:
        total = total * 0.5
        s.v.assign_add(tf.ones([2]) * y * 0.1)
        total = total + tf.tanh(y)
    return (janus_leave, total)"""


def _split(fn):
    node, _ = source.parse_function(fn)
    found = breaks.static_breaks(node, globals(), {"s": State()})
    return node, segments.split(node, set(found), globals(),
                                frozenset(breaks.static_openings(node)))


def test_split_renders_as_documented():
    node, split = _split(walk)
    assert ast.unparse(gast.gast_to_ast(split.function)) == GOLDEN_OUTER
    assert ast.unparse(gast.gast_to_ast(split.stretches[0].function(node))) == GOLDEN_SEGMENT
    guard = [s for s in split.stretches[0].body if leave.is_guard(s)]
    assert len(guard) == 1 and guard[0].lineno == guard[0].orelse[0].lineno


def jumps_after(s, xs):
    for x in xs:
        step = float(s.rng.normal())
        y = tf.reduce_sum(s.v * x) * step
        if y > 0.5:
            break
        s.v.assign_add(tf.ones([2]) * y)
        with tf.name_scope("rest"):
            if y < -0.5:
                continue
        s.log.append(1)


def two_jumps(s, xs):
    for x in xs:
        step = float(s.rng.normal())
        y = tf.reduce_sum(s.v * x) * step
        if y > 0.5:
            if y > 1.0:
                continue
            break
        s.v.assign_add(tf.ones([2]) * y)


@pytest.mark.parametrize("fn", [jumps_after, two_jumps])
def test_not_rewritten(fn):
    """The statements after it jump (only the last `if` leaving a body is rewritten), or
    its body jumps twice: the split is the one without the rewrite."""
    _, split = _split(fn)
    text = ast.unparse(gast.gast_to_ast(split.function)) + "".join(
        ast.unparse(gast.gast_to_ast(s.function(None))) for s in split.stretches)
    assert "janus_leave" not in text, text


def test_rewritten_equals_plain(monkeypatch):
    from janus.fallback import trial
    monkeypatch.setattr(segments, "TINY_OPS", 0)  # (every segment kept: tests/fallback's
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0)  # `any_size`)
    monkeypatch.setattr(trial, "PAYS", float("inf"))
    xs = [tf.constant([0.5, 0.1]), tf.constant([2.0, -1.0]), tf.constant([-1.0, 3.0])]
    calls = [(xs, limit) for limit in (0.05, 0.2, 9.0, 0.4, -1.0, 0.3, 0.1)]
    jitted = janus.jit(walk, segments=True)
    stats = assert_same(walk, calls, make_state=State, jitted=jitted)
    assert stats.segment_graph_calls > 0, jitted.explain()
