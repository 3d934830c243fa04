"""A function janus runs plainly for good (fallback/settled.py): its later calls run the
function at once, with plain Python's results, exceptions and heap, and counted as
before; a config change, a fallback log or `reset()` puts them back through janus."""
import io
import logging

import pytest
import tensorflow as tf

import janus
from janus.errors import JanusFallbackError
from tests.differential import assert_same


def _pairs(x, n):
    for i in range(n):
        yield x * float(i)


def gen_sum(x, n, log):
    """Generators are not converted: janus runs it plainly (split, no segment pays)."""
    total = 0.0
    for v in _pairs(x, n):
        total = total + v
    log.append(n)
    if n < 0:
        raise ValueError(f"negative n={n}")
    return total


def _calls(count):
    return [(tf.constant([1.0, 2.0]), i % 4, []) for i in range(count)]


def test_a_function_janus_cannot_convert_settles_plain_and_matches_eager():
    jitted = janus.jit(gen_sum)
    stats = assert_same(gen_sum, _calls(30) + [(tf.constant([1.0]), -1, [])], jitted=jitted)
    assert jitted._settled is not None, janus.explain(jitted)
    assert stats.calls == 31 and stats.fallback_calls >= 29, stats
    assert sum(stats.fallback_reasons.values()) == stats.fallback_calls, stats


def test_the_settled_fast_path_counts_calls_and_keeps_exceptions():
    jitted = janus.jit(gen_sum)
    for args in _calls(20):
        jitted(*args)
    assert jitted._settled is not None
    before = janus.stats(jitted)
    calls, fallbacks = before.calls, before.fallback_calls
    log = []
    assert float(tf.reduce_sum(jitted(tf.constant([1.0, 1.0]), 3, log))) == 6.0
    assert log == [3]
    with pytest.raises(ValueError, match="negative n=-2"):
        jitted(tf.constant([1.0]), -2, log)
    assert log == [3, -2]  # (plain Python's effects before the raise)
    stats = janus.stats(jitted)
    assert (stats.calls, stats.fallback_calls) == (calls + 2, fallbacks + 2)


def test_a_config_change_unsettles_strict_raises_again():
    jitted = janus.jit(gen_sum)
    for args in _calls(20):
        jitted(*args)
    assert jitted._settled is not None
    try:
        janus.config.strict = True
        with pytest.raises(JanusFallbackError):
            jitted(*_calls(1)[0])
    finally:
        janus.config.strict = False
    jitted(*_calls(1)[0])  # settles again under the restored config
    assert jitted._settled is not None


def test_a_fallback_log_hears_every_call_and_reset_forgets():
    jitted = janus.jit(gen_sum)
    for args in _calls(20):
        jitted(*args)
    assert jitted._settled is not None
    stream = io.StringIO()
    janus.logs.enable("fallback", stream=stream)
    try:
        for args in _calls(3):
            jitted(*args)
        assert jitted._settled is None  # (a log of each fallback: not settled)
    finally:
        janus.logs.disable()
    assert stream.getvalue().count("gen_sum: runs eagerly") == 3, stream.getvalue()
    jitted(*_calls(1)[0])
    assert jitted._settled is not None
    jitted.reset()
    assert jitted._settled is None
    logging.getLogger("janus").handlers.clear()


def test_a_function_that_makes_graphs_is_not_settled():
    def affine(x):
        return x * 2.0 + 1.0

    jitted = janus.jit(affine)
    assert_same(affine, [(tf.constant([float(i)]),) for i in range(8)], jitted=jitted)
    assert jitted._settled is None and janus.stats(jitted).graph_calls > 0


def early_stop(s, x):
    """Segments (a `.numpy()` break) that the stopped calls never reach."""
    if s["stopped"]:
        return None
    y = tf.reduce_sum(x * 2.0)
    s["stopped"] = float(y.numpy()) > 0.0
    return y


def test_a_repeated_fallback_is_announced_to_listeners_of_repeats_only():
    from janus import events
    every, once = [], []
    hear_all = events.subscribe("fallback", lambda jit, c, r: every.append(r))
    hear_once = events.subscribe("fallback", lambda jit, c, r: once.append(r), repeats=False)
    try:
        jitted = janus.jit(early_stop)
        state = {"stopped": False}
        for _ in range(12):
            jitted(state, tf.constant([1.0, 2.0]))
    finally:
        events.unsubscribe("fallback", hear_all)
        events.unsubscribe("fallback", hear_once)
    stats = janus.stats(jitted)
    assert len(every) == stats.fallback_calls > 8, (every, stats)
    jitted_once = janus.jit(early_stop)
    hear_once = events.subscribe("fallback", lambda jit, c, r: once.append(r), repeats=False)
    once.clear()
    try:
        state = {"stopped": False}
        for _ in range(12):
            jitted_once(state, tf.constant([1.0, 2.0]))
    finally:
        events.unsubscribe("fallback", hear_once)
    assert 1 <= len(once) < janus.stats(jitted_once).fallback_calls, once
