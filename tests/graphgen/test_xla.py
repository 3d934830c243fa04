"""XLA is tried per stable static-shape specialization (on by default), compiled in the
background while the plain graph serves, and kept only where it is faster; results stay
those of plain Python either way."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import xla


@pytest.fixture(autouse=True)
def tiny_graphs_count(monkeypatch):
    """These tests' graphs are tiny: XLA is tried on them all the same."""
    monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 0.0)


def cell(w, h, x):
    for _ in range(4):
        h = tf.tanh(tf.matmul(h, w) + x)
    return tf.reduce_sum(h)


def _calls_until_decided(jitted, fn, make_args, limit=200):
    """Call until the first specialization's XLA decision is made; compare every call."""
    for i in range(limit):
        args = make_args(i)
        np.testing.assert_allclose(jitted(*args).numpy(), fn(*args).numpy(), rtol=1e-5)
        spec = jitted.specializations[0] if jitted.specializations else None
        if spec is not None and spec.xla.startswith("compiling"):
            assert xla.compiler.wait_idle(120)
        if spec is not None and spec.xla.startswith(("on", "off")):
            return spec
    raise AssertionError(f"no XLA decision after {limit} calls: {spec.xla!r}")


def test_xla_is_on_by_default_decides_and_results_stay_equal():
    assert janus.config.xla
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    spec = _calls_until_decided(jitted, cell, lambda i: (w, tf.ones([2, 8]) * i, tf.ones([2, 8])))
    assert spec.trial is None and "xla:" in spec.describe()
    assert spec.xla.startswith("on") == (spec.accelerated is not None)
    for i in range(3):  # and after the decision
        h, x = tf.ones([2, 8]) * i, tf.ones([2, 8])
        np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)


class Trainer:
    def __init__(self):
        self.w = tf.Variable(np.full((8, 8), 0.05, np.float32))
        self.steps = 0

    def step(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.tanh(tf.matmul(x, self.w)) ** 2)
        self.w.assign_sub(0.01 * tape.gradient(loss, self.w))
        self.last = loss
        return loss


def test_compiling_in_the_background_never_touches_the_real_variables():
    """The compile run uses copies of the variables: after the decision, plain Python
    and janus have made exactly the same updates."""
    plain, jitted_model = Trainer(), Trainer()
    jitted = janus.jit(Trainer.step)
    for i in range(xla.MIN_CALLS + 2 * xla.ROUNDS + 8):
        x = tf.ones([2, 8]) * (i % 3)
        np.testing.assert_allclose(jitted(jitted_model, x).numpy(), plain.step(x).numpy(),
                                   rtol=1e-5)
        if i == xla.MIN_CALLS + 1:
            assert xla.compiler.wait_idle(120)
        np.testing.assert_allclose(jitted_model.w.numpy(), plain.w.numpy(), rtol=1e-5)
    np.testing.assert_allclose(jitted_model.last.numpy(), plain.last.numpy(), rtol=1e-5)
    assert jitted.specializations[0].xla.startswith(("on", "off", "measuring"))


def test_random_ops_are_not_compiled():
    def noisy(x):
        return tf.reduce_sum(x + tf.random.uniform([2, 8], seed=1))
    jitted = janus.jit(noisy)
    for _ in range(xla.MIN_CALLS + 3):
        jitted(tf.ones([2, 8]))
        assert xla.compiler.wait_idle(120)
    spec = jitted.specializations[0]
    assert spec.xla.startswith("off (not tried") and "Random" in spec.xla


def test_off_by_config(monkeypatch):
    monkeypatch.setattr(janus.config, "xla", False)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(xla.MIN_CALLS + 5):
        jitted(w, tf.ones([2, 8]) * i, tf.ones([2, 8]))
    assert all(spec.xla == "" and spec.trial is None for spec in jitted.specializations)


def test_graphs_too_quick_to_gain_are_not_compiled(monkeypatch):
    monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 10.0)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(xla.MIN_CALLS + 5):
        jitted(w, tf.ones([2, 8]) * i, tf.ones([2, 8]))
    assert all(spec.xla == "" and spec.trial is None for spec in jitted.specializations)


def test_dynamic_shapes_are_not_tried():
    jitted = janus.jit(cell)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    for n in list(range(1, 10)) + [9] * xla.MIN_CALLS:
        h = tf.ones([n, 8])
        np.testing.assert_allclose(jitted(w, h, h).numpy(), cell(w, h, h).numpy(), rtol=1e-5)
    dynamic = [spec for spec in jitted.specializations
               if any(d is None for _, _, (_, shape) in spec.inputs for d in shape)]
    assert dynamic and all(spec.xla == "" and spec.trial is None for spec in dynamic)


def test_a_failing_xla_call_falls_back_to_the_plain_graph(monkeypatch):
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(janus.config.profile_calls + xla.MIN_CALLS):
        jitted(w, tf.ones([2, 8]) * i, tf.ones([2, 8]))
    assert xla.compiler.wait_idle(120)
    spec = jitted.specializations[0]
    assert spec.trial is not None, spec.xla

    def broken(self, inputs):
        raise tf.errors.InternalError(None, None, "injected XLA failure")
    monkeypatch.setattr(xla.XlaVariant, "call", broken)
    h, x = tf.ones([2, 8]) * 3, tf.ones([2, 8])
    np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)
    assert spec.xla.startswith("off (failed: InternalError") and spec.trial is None


def test_a_failing_kept_xla_variant_is_dropped(monkeypatch):
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(janus.config.profile_calls + xla.MIN_CALLS):
        jitted(w, tf.ones([2, 8]) * i, tf.ones([2, 8]))
    assert xla.compiler.wait_idle(120)
    spec = jitted.specializations[0]
    spec.accelerated, spec.trial, spec.xla = spec.trial.variant, None, "on (forced)"

    def broken(self, inputs):
        raise tf.errors.InternalError(None, None, "injected XLA failure")
    monkeypatch.setattr(xla.XlaVariant, "call", broken)
    h, x = tf.ones([2, 8]) * 3, tf.ones([2, 8])
    np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)
    assert spec.accelerated is None and spec.xla.startswith("off (failed: InternalError")
    np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)


def test_which_ops_keep_a_graph_from_xla(monkeypatch):
    monkeypatch.setattr(xla, "_ops", lambda concrete: concrete)
    assert xla.unsafe_ops({"StatefulPartitionedCall", "PartitionedCall", "MatMul"}) == []
    assert xla.unsafe_ops({"StatefulUniform", "RandomStandardNormal", "Assert", "PrintV2",
                           "MatMul"}) == ["Assert", "PrintV2", "RandomStandardNormal",
                                          "StatefulUniform"]
