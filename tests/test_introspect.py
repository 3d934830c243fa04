"""`janus.deciding`: what janus still decides for a function, until its calls settle
(janus/introspect.py). Benchmarks start measuring once it is empty; each function here
is compared with plain Python on the same calls while it settles."""
import numpy as np
import tensorflow as tf

import janus
from janus.fallback import whole_trial
from tests.differential import assert_same


def _settling(fn, make_args, calls: int = 40, **options) -> list:
    """`fn` under janus against plain Python for `calls` calls; what `janus.deciding`
    said before each janus call."""
    jitted = janus.jit(fn, **options)
    said: list = []

    def watched(*args):
        said.append(janus.deciding(jitted))
        return jitted(*args)

    assert_same(fn, [make_args(i) for i in range(calls)], jitted=watched, stats_of=jitted)
    return said


def small(x):
    return x * 2.0 + 1.0


def test_a_small_graph_settles_after_profiling_and_its_trial(monkeypatch):
    monkeypatch.setattr(janus.config, "plain_trial", True)  # (off in tests: conftest.py)
    said = _settling(small, lambda i: (tf.constant([float(i), 1.0]),))
    assert said[0] == ["profiling (0/2 calls)"]
    assert any("graph vs plain Python" in line for s in said for line in s), said
    assert said[-1] == [], said  # (a trial is bounded: 1 + ROUNDS plain calls at most)


def split(w, x):
    y = tf.tanh(tf.matmul(x, w)) * 2.0 + 1.0
    y = tf.tanh(tf.matmul(y, tf.transpose(w))) * 3.0 - 1.0
    scale = float(y.numpy().sum())  # a graph break: the function is split here
    z = tf.matmul(y * scale, w) + tf.reduce_sum(x)
    return tf.tanh(tf.matmul(z, tf.transpose(w))) / 2.0 + scale


def test_a_split_function_settles_once_its_parts_are_decided(monkeypatch):
    # (no drift trial: a loaded machine's timings drift 4x and start one again, F327;
    # tests/fallback/test_whole_trial.py tests drift, F469's CI run failed here)
    monkeypatch.setattr(whole_trial, "MAX_DRIFT_TRIALS", 0)
    w = tf.constant(np.full((3, 2), 0.3, np.float32))
    said = _settling(split, lambda i: (w, tf.fill([2, 3], 0.1 * (i + 1))), calls=60)
    # (60: the whole trial runs all its rounds unless one side wins 3x, F328)
    lines = [line for s in said for line in s]
    assert any(line.startswith("whether its Python needs") for line in lines), lines
    assert any(line.startswith("segment ") for line in lines), lines
    assert said[-1] == [], said


def test_nothing_is_decided_with_janus_disabled():
    said = _settling(small, lambda i: (tf.constant([float(i)]),), calls=3, disabled=True)
    assert said == [[], [], []]


def scaled(x, k):
    return tf.tanh(x * float(k)) * 2.0 + 1.0


def test_a_specialization_that_no_longer_fits_stops_deciding(monkeypatch):
    """F256: a specialization traced on a value that never came back ("graph vs plain
    Python, not tried yet" or "on trial" forever) kept `deciding` from emptying."""
    monkeypatch.setattr(janus.config, "plain_trial", True)
    said = _settling(scaled, lambda i: (tf.constant([float(i), 1.0]), 3 if i < 3 else i),
                     calls=80)
    assert said[-1] == [], said[-1]
