"""TensorFlow's numpy behavior (janus/numpy_modes.py, F393): under dtype_conversion_mode
"all" or "safe" every call runs plainly (results, dtypes, weak tensor types as plain
Python's; no graph per value); graphs made under other numpy settings are dropped.

The settings are process-wide: the in-process tests set the dtype conversion mode and
`prefer_float32` alone and restore them; `experimental_enable_numpy_behavior` itself
(which also patches tf.Tensor for good) runs in a subprocess.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import tensorflow as tf
from tensorflow.python.framework import ops
from tensorflow.python.ops.numpy_ops import np_dtypes

import janus
from tests.differential import assert_same

tnp = tf.experimental.numpy
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def numpy_settings():
    """Set TF's dtype conversion mode / prefer_float32 in a test; restored after it."""
    saved = (ops.get_dtype_conversion_mode(), np_dtypes.is_prefer_float32())

    def set_(mode: str, prefer_float32: bool = False) -> None:
        ops.set_dtype_conversion_mode(mode)
        np_dtypes.set_prefer_float32(prefer_float32)

    yield set_
    ops.set_dtype_conversion_mode(ops.promo_mode_enum_to_string(saved[0]))
    np_dtypes.set_prefer_float32(saved[1])


def _kinds(value):
    """Python types and dtypes of a result (assert_same compares tensors by value)."""
    if isinstance(value, (tuple, list)):
        return [_kinds(v) for v in value]
    return type(value).__name__, getattr(value, "dtype", None)


def _same_kinds(fn, calls):
    jitted = janus.jit(fn)
    for args in calls:
        assert _kinds(jitted(*args)) == _kinds(fn(*args))
    return janus.stats(jitted)


def scaled(x, f):
    return tf.tanh(x + f) * 2.0


def constant_of(x, f):
    return tf.constant(f) + x


def weak_product(x, w):
    return x * w + 1, tnp.sqrt(w)


@pytest.mark.parametrize("mode", ["all", "safe"])
def test_weak_modes_run_plainly_with_plain_results(numpy_settings, mode):
    numpy_settings(mode)
    x = tf.constant([1.0, 2.0])  # (weak under these modes)
    for fn, numbers in ((scaled, [0.1 * i for i in range(6)]),
                        (constant_of, [0.25 * i for i in range(6)]),
                        (constant_of, list(range(6)))):
        stats = assert_same(fn, [(x, f) for f in numbers])
        assert (stats.generations, stats.graph_calls, stats.profile_calls) == (0, 0, 0)
        assert stats.fallback_calls == 6
    weak = [tf.math.add(2.0, 0.5 * i) for i in range(5)]  # EagerWeakTensors
    assert type(weak[0]).__name__ == "EagerWeakTensor"
    stats = _same_kinds(weak_product, [(x, w) for w in weak])
    assert (stats.generations, stats.graph_calls) == (0, 0)
    jitted = janus.jit(scaled)
    for i in range(5):
        assert _kinds(jitted(x, 0.5 * i)) == _kinds(scaled(x, 0.5 * i))
    assert janus.stats(jitted).generations == 0
    assert janus.deciding(jitted) == []  # (a benchmark waiting for it measures at once)
    assert "numpy behavior" in janus.explain(jitted, x, 0.5)


def test_graphs_resume_when_the_mode_is_off_again(numpy_settings):
    jitted = janus.jit(scaled)
    x = tf.constant([1.0, 2.0])
    numpy_settings("all")
    for i in range(3):
        assert _kinds(jitted(x, 0.5 * i)) == _kinds(scaled(x, 0.5 * i))
    assert "numpy behavior" in jitted.last_decision  # (the reason, recorded)
    numpy_settings("off")
    for i in range(5):
        tf.debugging.assert_near(jitted(x, 0.5 * i), scaled(x, 0.5 * i))
    stats = janus.stats(jitted)
    assert stats.graph_calls >= 2 and stats.generations >= 1 and stats.fallback_calls == 3


def as_array_scaled(x, f):
    return tnp.asarray(f) * 2 + tf.cast(x, tnp.asarray(f).dtype)


def test_graphs_of_other_numpy_settings_are_dropped(numpy_settings):
    """Under "legacy" a Python float is float64 to tnp, float32 with prefer_float32:
    a graph traced before the change kept float64."""
    numpy_settings("legacy")
    x = tf.constant([1.0, 2.0])
    jitted = janus.jit(as_array_scaled)
    for i in range(4):
        assert _kinds(jitted(x, 0.5 * i)) == _kinds(as_array_scaled(x, 0.5 * i))
    assert janus.stats(jitted).graph_calls >= 1
    numpy_settings("legacy", prefer_float32=True)
    for i in range(5):
        expected = as_array_scaled(x, 0.25 * i)
        actual = jitted(x, 0.25 * i)
        assert _kinds(actual) == _kinds(expected)
        tf.debugging.assert_near(actual, expected)


def weak_calc(a, f, mode):
    """`a` with a number under TF's dtype conversion `mode`, the mode before after it."""
    saved = ops.promo_mode_enum_to_string(ops.get_dtype_conversion_mode())
    ops.set_dtype_conversion_mode(mode)
    try:
        w = tf.constant(f) * 0.5 + 1.0
        v = tf.tanh(w + a[:2])
        return tf.reduce_sum(v), type(w).__name__, w.dtype.name
    finally:
        ops.set_dtype_conversion_mode(saved)


def calls_weak_calc(x, f):
    total, kind, dtype = weak_calc(x, f, "all")
    print("weak", kind, dtype)
    return total, kind, dtype


def test_a_call_setting_the_mode_runs_plainly(numpy_settings):
    """The trace would run the setter (under "all" while it traces) and the graph not:
    `GraphWeakTensor`s, float64 where plain Python's is float32 (F393)."""
    numpy_settings("off")
    x = tf.constant([1.0, 2.0])
    stats = assert_same(calls_weak_calc, [(x, v) for i in range(5) for v in (i, 0.5 * i)])
    assert stats.graph_calls == 0
    assert ops.get_dtype_conversion_mode() == ops.PromoMode.OFF


_PROGRAM = r'''
import json, sys
import tensorflow as tf
import janus

def step(x, f, w):
    y = tf.tanh(x + f) * 2.0 + w
    return y, tf.experimental.numpy.asarray(f) * y[0], tf.constant(f) + x

out = {}
for mode in sys.argv[1:]:
    if mode == "default":
        tf.experimental.numpy.experimental_enable_numpy_behavior()
    else:
        tf.experimental.numpy.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    jitted = janus.jit(step)
    x = tf.constant([1.0, 2.0])
    kinds = []
    for i in range(6):
        args = (x, 0.25 * i, tf.math.add(1.0, 0.5 * i))
        plain, mine = step(*args), jitted(*args)
        kinds.append([[type(p).__name__, p.dtype.name, type(m).__name__, m.dtype.name,
                       float(tf.reduce_max(tf.abs(tf.cast(p, tf.float64) -
                                                  tf.cast(m, tf.float64))))]
                      for p, m in zip(plain, mine)])
    out[mode] = {"kinds": kinds, "stats": janus.stats(jitted).as_dict()}
print(json.dumps(out, default=str))
'''


def test_numpy_behavior_modes_in_a_process(tmp_path):
    """`experimental_enable_numpy_behavior` as a program calls it, mode after mode."""
    env = dict(os.environ, JANUS_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONPATH=ROOT)
    program = tmp_path / "numpy_modes_program.py"  # (janus reads its source)
    program.write_text(_PROGRAM)
    done = subprocess.run([sys.executable, str(program), "all", "safe", "default"],
                          env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    for mode, seen in out.items():
        for call in seen["kinds"]:
            for plain_type, plain_dtype, type_, dtype, difference in call:
                assert (type_, dtype) == (plain_type, plain_dtype), (mode, call)
                assert difference < 1e-5, (mode, call)
    assert out["all"]["stats"]["generations"] == out["safe"]["stats"]["generations"] == 0
    assert out["default"]["stats"]["graph_calls"] >= 1  # ("legacy": graphs are made)
