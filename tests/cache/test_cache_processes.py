"""Processes sharing one cache directory: concurrent writers add up, a later process
starts warm (no profiling, same results). Each subprocess imports TF (~3 s), so the
module runs one round of two concurrent writers and one warm process."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from janus.cache import record as rec
from janus.cache.store import CacheStore
from tests.cache.helpers import env_for, python_script, run_many

PROGRAM = '''
import json, sys, time
import tensorflow as tf
import janus

janus.cache.settings.flush_interval = 0.02   # flush all the time: writers overlap

@janus.jit
def rnn_like(xs, w):
    h = tf.zeros([2, 4])
    for x in xs:
        h = tf.tanh(tf.matmul(x, w) + h)
    if tf.reduce_sum(h) > -100.0:
        h = h * 1.5
    return tf.reduce_sum(h)

@janus.jit
def scale(x, k):
    return x * k

mode = sys.argv[1]
warmed = [janus.cache.warm_start(rnn_like), janus.cache.warm_start(scale)] if mode == "warm" else []
w = tf.constant([[0.1 * (i - j) for j in range(4)] for i in range(4)])
results, eager = [], []
for step in range(40):
    n = 3 + step % 5
    xs = [tf.ones([2, 4]) * (0.1 * i) for i in range(n)]
    results.append(float(rnn_like(xs, w)))
    results.append(scale(tf.ones([2]) * step, 2.0).numpy().tolist())
    eager.append(float(rnn_like.fn(xs, w)))   # plain Python, the reference
    eager.append(scale.fn(tf.ones([2]) * step, 2.0).numpy().tolist())
    time.sleep(0.003)
janus.cache.flush()
print(json.dumps({"warm": warmed, "results": results, "eager": eager,
                  "stats": {f.__name__: janus.stats(f).as_dict() for f in (rnn_like, scale)},
                  "ids": {f.__name__: janus.cache.record_ids(f) for f in (rnn_like, scale)}}))
'''


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("processes")
    cache = tmp / "cache"
    script = python_script(tmp, "program.py", PROGRAM)
    import sys
    # the two cold processes record but must not start warm from each other's records
    cold_env = dict(env_for(cache), JANUS_WARM_START="record")
    cold = run_many([([sys.executable, script, "cold"], cold_env, None)] * 2, parallel=2)
    warm = run_many([([sys.executable, script, "warm"], env_for(cache), None)])
    for r in cold + warm:
        assert r.returncode == 0, str(r)
    return cache, [json.loads(r.stdout.splitlines()[-1]) for r in cold], \
        json.loads(warm[0].stdout.splitlines()[-1])


def test_two_concurrent_writers_add_up_and_leave_no_torn_files(rounds):
    cache, cold, _ = rounds
    store = CacheStore(str(cache))
    listing = store.scan()
    assert listing.problems == []
    assert not [n for _, _, files in os.walk(cache) for n in files if n.startswith(".tmp")]
    by_name = {f.qualname: f for f in listing.functions}
    assert set(by_name) == {"rnn_like", "scale"}
    for name, function in by_name.items():
        index = function.index
        # Both processes made the same specializations: same content ids.
        assert cold[0]["ids"][name] == cold[1]["ids"][name]
        assert set(index["specializations"]) >= set(cold[0]["ids"][name])
        # ...and every counter is the sum of the two processes plus the warm one.
        assert index["processes"] == 3
        runs = [c["stats"][name] for c in cold]
        assert sum(r["calls"] for r in runs) == 80
        assert sum(c["graph_runs"] for c in index["specializations"].values()) == \
            index["counters"]["graph_calls"]
        for spec in function.specs:
            graph = store.read_graph(spec)   # verified against its sha256
            assert graph.startswith("node {")


def test_counters_are_exact_sums_over_processes(rounds):
    cache, cold, warm = rounds
    for name in ("rnn_like", "scale"):
        index = rec.read_json(str(next(cache.glob(f"{name}-*/function.json"))), "function")
        runs = [c["stats"][name] for c in cold] + [warm["stats"][name]]
        for counter in ("calls", "graph_calls", "profile_calls", "fallback_calls", "generations"):
            assert index["counters"][counter] == sum(r[counter] for r in runs), counter


def test_a_later_process_starts_warm_with_equal_results(rounds):
    _, cold, warm = rounds
    assert warm["warm"] == [True, True]
    assert warm["results"] == cold[0]["results"] == cold[1]["results"]
    for run in cold + [warm]:  # and every process equals plain eager Python
        np.testing.assert_allclose(np.array(run["results"][0::2]), np.array(run["eager"][0::2]),
                                   rtol=1e-6)
        assert run["results"][1::2] == run["eager"][1::2]
    for name in ("rnn_like", "scale"):
        stats = warm["stats"][name]
        assert stats["profile_calls"] == 0, name            # profiling skipped
        assert stats["graph_calls"] == 40, name             # every call ran as a graph
        assert stats["generations"] <= cold[0]["stats"][name]["generations"]
        assert cold[0]["stats"][name]["profile_calls"] == 2
    assert warm["ids"]["rnn_like"] == cold[0]["ids"]["rnn_like"][-1:]  # the very same graph


def test_a_later_process_runs_the_recorded_graph_without_tracing(rounds):
    _, cold, warm = rounds
    for name in ("rnn_like", "scale"):
        assert cold[0]["stats"][name]["generations"] >= 1, name
        assert warm["stats"][name]["generations"] == 0, name  # loaded, not traced
        assert warm["stats"][name]["graph_calls"] == 40, name
    assert warm["results"] == cold[0]["results"]
