"""A specialization's graph-or-plain decision (graphgen/plain_trial.py) is recorded in
the graph cache and shown by `janus cache list` / `janus cache show`."""
import numpy as np
import tensorflow as tf

import janus
from janus.graphgen import plain_trial
from tests.cli.test_cli_cache import assert_decision_shown, run_main


def tiny(x):
    return x * 2.0 + 1.0


def test_the_plain_decision_is_recorded_and_shown(cache_dir, monkeypatch):
    monkeypatch.setattr(janus.config, "plain_trial", True)
    monkeypatch.setattr(plain_trial, "MAX_GRAPH_S", float("inf"))
    real = plain_trial.after_call  # injected timings: plain Python 3x as fast
    monkeypatch.setattr(plain_trial, "after_call", lambda spec, t, kind, _, *a, **k: real(
        spec, t, kind, 1e-4 if kind == "plain" else 3e-4, *a, **k))
    monkeypatch.setattr(plain_trial, "SLOWER", float("inf"))  # no new trial once decided
    jitted = janus.jit(tiny)
    for i in range(30):
        x = tf.ones([3]) * i
        np.testing.assert_allclose(jitted(x).numpy(), tiny(x).numpy())
    [spec] = jitted.specializations
    assert spec.runs_plain, spec.plain
    stats = janus.stats(jitted)
    janus.cache.flush()
    listed = run_main(["--cache-dir", str(cache_dir), "cache", "list"])
    assert listed.returncode == 0, listed
    assert "[runs plain]" in listed.stdout
    assert f"graph {stats.graph_calls}, plain {stats.plain_calls}, profiled" in listed.stdout
    assert_decision_shown(cache_dir, jitted, "tiny", "plain", spec.plain)
