"""The XLA decision of a specialization is recorded in the graph cache and shown by
`janus cache list` / `janus cache show`."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import xla
from tests.cli.test_cli_cache import run_main


@pytest.fixture(autouse=True)
def tiny_graphs_count(monkeypatch):
    """XLA on (it is opt-in); these tests' graphs are tiny: XLA is tried on them all the
    same."""
    monkeypatch.setattr(janus.config, "xla", True)
    monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 0.0)


def cell(w, h):
    for _ in range(3):
        h = tf.tanh(tf.matmul(h, w))
    return tf.reduce_sum(h)


def test_the_xla_decision_is_recorded_and_shown(cache_dir):
    jitted = janus.jit(cell)
    w = tf.constant(np.full((4, 4), 0.1, np.float32))
    spec = None
    for i in range(60):
        h = tf.ones([2, 4]) * i
        np.testing.assert_allclose(jitted(w, h).numpy(), cell(w, h).numpy(), rtol=1e-5)
        assert xla.compiler.wait_idle(120)
        if not jitted.specializations:
            continue  # still profiling
        spec = jitted.specializations[0]
        if spec.xla.startswith(("on", "off")):
            break
    assert spec.xla.startswith(("on", "off")), spec.xla
    janus.cache.flush()
    listed = run_main(["--cache-dir", str(cache_dir), "cache", "list"])
    assert listed.returncode == 0, listed
    decision = spec.xla.split(" (")[0]
    assert f"[xla {decision}]" in listed.stdout
    [sid] = janus.cache.recorder.sids_of(jitted)
    shown = run_main(["--cache-dir", str(cache_dir), "cache", "show", sid])
    assert shown.returncode == 0, shown
    assert f"  xla:       {spec.xla}" in shown.stdout
    function = run_main(["--cache-dir", str(cache_dir), "cache", "show", "cell"])
    assert function.returncode == 0, function
    assert f"      xla: {spec.xla}" in function.stdout  # under its specialization's line
    assert f"  xla: {spec.xla} [specialization {sid}]" in function.stdout  # in the history
