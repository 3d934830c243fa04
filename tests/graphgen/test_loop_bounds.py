"""A Python int a bounded loop carries keeps a static bound by induction (graphgen/
loop_bounds.py, F452): `self.steps += 1` in a loop of known length that breaks on a
tensor needs no overflow check per iteration; an int that grows otherwise is checked
against the bound, and where it leaves it the call reruns plainly (Python's big ints).
Every test compares janus with plain Python call by call, then looks at the loop body."""
import collections

import tensorflow as tf

import janus
from tests.differential import assert_same


def _body_ops(jitted) -> collections.Counter:
    """Op types of the loop bodies of the last specialization's graph (int64 comparisons
    apart: `Greater64`...)."""
    graph_def = jitted.specializations[-1].concrete.graph.as_graph_def()
    ops = collections.Counter()
    for f in graph_def.library.function:
        if "body" not in f.signature.name:
            continue
        for node in f.node_def:
            wide = node.attr["T"].type == tf.int64.as_datatype_enum
            ops[node.op + ("64" if wide and node.op in _COMPARISONS else "")] += 1
    return ops


_COMPARISONS = {"Greater", "GreaterEqual", "Less", "LessEqual"}


class Ticker:
    def __init__(self):
        self.steps = 0
        self.count = 1


def ticks(env, xs, limit):
    env.steps = 0
    out = []
    for t in range(20):
        env.steps += 1
        out.append(xs[t] * 2.0)
        if tf.reduce_sum(xs[: t + 1]) > limit or env.steps >= 15:
            break
    return tf.stack(out), env.steps


XS = tf.constant([0.5] * 20)
CALLS = [(XS * (1.0 + 0.1 * (k % 4)), 3.0 + k % 3) for k in range(8)] + [(XS, 100.0)]


def test_a_counter_stepped_by_one_needs_no_overflow_check_per_iteration():
    jitted = janus.jit(ticks)
    stats = assert_same(ticks, CALLS, Ticker, jitted=jitted)
    assert stats.graph_calls >= 5, stats
    ops = _body_ops(jitted)
    # (before: `steps + 1 > steps` as Greater64 and its LogicalAnd into the body's ok)
    assert ops["Greater64"] == 0 and ops["LogicalAnd"] == 0, sorted(ops.items())


def grows(env, xs, factor):
    env.count = 1
    out = []
    for t in range(12):
        env.count = env.count * factor + 1
        out.append(xs[t])
        if tf.reduce_sum(xs[: t + 1]) > 4.0:
            break
    return tf.stack(out), env.count


def test_an_int_that_grows_past_the_bound_reruns_plainly_with_python_s_big_ints():
    small = [(XS * (1.0 + 0.2 * k), 2 + k % 3) for k in range(6)]
    big = [(XS * 0.1, 2 ** 20)]  # (12 iterations: the count reaches 2 ** 240)
    jitted = janus.jit(grows)
    stats = assert_same(grows, small + big + small[:3] + big + small, Ticker, jitted=jitted)
    assert stats.graph_calls >= 8, stats
    ops = _body_ops(jitted)
    assert ops["LessEqual64"] + ops["GreaterEqual64"] >= 1, sorted(ops.items())  # (checked)


def counts_down(env, xs, start):
    env.steps = start
    out = []
    for t in range(10):
        env.steps -= 3
        out.append(xs[t])
        if tf.reduce_sum(xs[: t + 1]) > 2.0:
            break
    return tf.stack(out), env.steps, env.steps * (2 ** 40)


def test_a_counter_stepped_down_from_a_fed_start_keeps_python_s_values():
    calls = [(XS * (0.5 + 0.3 * k), 7 + k) for k in range(6)]
    jitted = janus.jit(counts_down)
    stats = assert_same(counts_down, calls + calls[:3], Ticker, jitted=jitted)
    assert stats.graph_calls >= 4, stats
    assert _body_ops(jitted)["LogicalAnd"] == 0
