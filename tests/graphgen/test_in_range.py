"""Gathers janus builds in range by construction (graphgen/in_range.py, F451): the
uniforms a loop that draws reads from the buffer janus feeds (K covers every draw the
graph can make) and the items of a loop over a list of varying length; no dead-ends
`Assert` keeps them in the loop body, while a gather of the user's in the same body
still is kept (and raises as plain Python does). Plain Python and janus call by call
(on twin RNGs), then the loop body's ops."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.graphgen.test_host_draws import RS, _outcome, _same, _state


def _twins(fn, seed, calls):
    plain, twin = RS(seed), RS(seed)
    jitted = janus.jit(fn)
    for i, call in enumerate(calls):
        expected, actual = _outcome(fn, plain, *call), _outcome(jitted, twin, *call)
        assert expected[0] == actual[0], (i, expected, actual)
        if expected[0] == "ok":
            _same(expected[1], actual[1])
        else:
            assert expected[1] == actual[1]
        assert _state(plain) == _state(twin), f"call {i}: the RNG's state differs"
    assert janus.stats(jitted).graph_calls >= len(calls) // 2, janus.stats(jitted)
    return jitted


def _asserted(jitted) -> list:
    """The op types each loop body's `Assert`s keep."""
    graph_def = jitted.specializations[-1].concrete.graph.as_graph_def()
    kept = []
    for f in graph_def.library.function:
        if "body" not in f.signature.name:
            continue
        by_name = {n.name: n for n in f.node_def}
        for n in f.node_def:
            if n.op == "Assert":
                kept += [by_name[i.split(":")[0]].op for i in n.input[1:]
                         if not i.startswith("^") and i.split(":")[0] in by_name]
    return kept


def episode(rs, x, w, table, pick):
    total = tf.constant(0.0, tf.float64)
    for t in range(10):
        probs = tf.nn.softmax(tf.cast(tf.matmul(x, w), tf.float64))[0]
        action = rs.choice(2, p=probs)
        x = x + tf.constant([[0.1, -0.1]]) * float(t)
        total = total + probs[action]
        if pick:
            # (the user's gather: kept; out of range in some calls, as plain raises)
            junk = tf.gather(table, action + t)  # noqa: F841
        if total > 1.5:
            break
    return total


def _calls(seed, pick):
    data = np.random.RandomState(seed)
    w = tf.constant(data.normal(size=(2, 2)), tf.float32)
    return [(tf.constant(data.normal(size=(1, 2)) * (i % 3), tf.float32), w,
             tf.range(2.0 + i % 3 * 4), pick) for i in range(14)]


def test_the_buffer_gather_needs_no_keeping():
    jitted = _twins(episode, 3, _calls(3, False))
    assert "GatherV2" not in _asserted(jitted)


def test_a_users_gather_in_the_same_body_is_still_kept_and_raises_as_plain():
    jitted = _twins(episode, 4, _calls(4, True))
    assert _asserted(jitted).count("GatherV2") == 1


def returns(rewards, table, gamma):
    """`discounted_returns` of the actor-critic model, over a list of varying length."""
    out, acc = [], 0.0
    for r in rewards[::-1]:
        acc = r + gamma * acc
        out.insert(0, acc)
        if table is not None:
            junk = tf.gather(table, tf.cast(acc, tf.int32))  # noqa: F841 (the user's)
    return tf.stack(out)


def _list_calls(table):
    return [([tf.constant(1.0 + 0.5 * k) for k in range(2 + i % 5)],
             None if table is None else tf.range(table + i % 3 * 2.0), 0.9)
            for i in range(14)]


def test_the_items_of_a_loop_over_a_list_need_no_keeping():
    jitted = janus.jit(returns)
    stats = assert_same(returns, _list_calls(None), jitted=jitted)
    assert stats.graph_calls >= 7, stats
    assert "GatherV2" not in _asserted(jitted)


def test_with_a_users_gather_in_that_loop_kept_and_raising_as_plain():
    jitted = janus.jit(returns)
    stats = assert_same(returns, _list_calls(4.0), jitted=jitted)
    assert stats.graph_calls >= 4, stats
    assert _asserted(jitted).count("GatherV2") == 1
