"""The recorder, in this process: what a record holds, when it is written, threads,
warm start, and the JANUS_LOGS lines."""
from __future__ import annotations

import importlib.util
import inspect
import io
import os
import sys
import threading
import warnings

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.cache import record as rec
from janus.cache.recorder import recorder
store_module = sys.modules["janus.cache.store"]  # (janus.cache.store is also a function)


class Model:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3, 3]))
        self.last = None

    @janus.jit
    def step(self, x, ys):
        h = x
        for y in ys:
            h = tf.matmul(h, self.w) + y
        if tf.reduce_sum(h) > 0:
            h = h * 2.0
        self.last = h
        return tf.reduce_sum(h)


def _line_of(text):
    lines, first = inspect.getsourcelines(Model.step.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _only_function(path):
    [key] = [d for d in os.listdir(path) if not d.startswith(".")]
    return path / key


def test_a_record_holds_the_specialization_and_its_counters(cache_dir):
    Model.step.reset()
    model = Model()
    x = tf.ones([2, 3])
    for n in (2, 2, 2, 3, 3):
        model.step(x, [tf.ones([2, 3])] * n)
    janus.cache.flush()
    jit = Model.step
    directory = _only_function(cache_dir)
    index = rec.read_json(str(directory / "function.json"), "function")
    assert index["function"]["qualname"] == "Model.step"
    assert index["function"]["module"] == __name__
    assert index["counters"]["calls"] == 5 and index["counters"]["graph_calls"] == 3
    assert index["counters"]["guard_failures"] == {"len(args[2]) == 2": 1}
    assert index["failures"][0]["guard"] == "len(args[2]) == 2"
    ids = janus.cache.record_ids(jit)
    assert len(ids) == 2 and set(ids) == set(index["specializations"])
    specs = {s.id: s for s in jit.specializations}
    for sid in ids:
        record = rec.read_json(str(directory / f"{sid}.json"), "specialization")
        assert rec.check_spec(record, sid) == ""
        texts = [g["text"] for g in record["guards"]]
        matching = [s for s in jit.specializations
                    if [rec.normalize(line) for line in s.guards.describe()] == texts]
        assert len(matching) == 1, texts   # each record is exactly one specialization
        spec = matching[0]
        assert "args[0].w is <ResourceVariable>" in [g["text"] for g in record["guards"]]
        assert record["in_graph_guards"][0]["where"] == f"{__file__}:{_line_of('if tf.reduce_sum')}"
        assert record["effects"] == ["args[0].last = <result>"]
        assert "janus__.for_stmt" in record["generated_source"]
        assert record["versions"]["tensorflow"] == tf.__version__
        assert record["versions"]["janus"] == janus.__version__
        assert record["op_histogram"] == spec.op_histogram()
        graph = (directory / record["graph_file"]).read_text()
        assert rec.sha256(graph) == record["graph_sha256"]
        graph_def = tf.compat.v1.GraphDef()
        from google.protobuf import text_format
        text_format.Parse(graph, graph_def)
        assert {n.op for n in graph_def.node} >= {"MatMul", "Assert"}
        counters = index["specializations"][sid]
        assert counters["graph_runs"] == specs[spec.id].calls
        assert counters["generations"] == 1
    assert sum(c["graph_runs"] for c in index["specializations"].values()) == 3
    # The same function run again here (same source, versions, guards): same ids, counts add up.
    model2 = Model()
    Model.step.reset()
    for n in (2, 2, 2):
        model2.step(x, [tf.ones([2, 3])] * n)
    janus.cache.flush()
    index = rec.read_json(str(directory / "function.json"), "function")
    assert index["counters"]["calls"] == 8
    assert len(index["specializations"]) == 2


def test_nothing_is_written_on_graph_runs(cache_dir, monkeypatch):
    monkeypatch.setattr(janus.cache.settings, "flush_interval", 3600)
    f = janus.jit(lambda_free_add)
    for _ in range(3):
        f(tf.ones([4]))
    janus.cache.flush()   # the record of the new graph
    directory = _only_function(cache_dir)

    def files():  # this function's files, as they are on disk
        return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in directory.iterdir()}
    before = files()
    for _ in range(200):
        f(tf.ones([4]))
    # (the recorder is process-wide: a thread an earlier test left may flush its own
    # functions meanwhile; what counts is that nothing of this one was written)
    assert files() == before
    janus.cache.flush()
    after = files()
    assert after.keys() == before.keys()
    assert [name for name in after if after[name] != before[name]] == ["function.json"]
    index = rec.read_json(str(directory / "function.json"))
    assert index["counters"]["graph_calls"] == 201


def lambda_free_add(x):
    return x + 1.0


def host_float(x):
    return float(tf.reduce_sum(x)).hex()  # no graph can do this: janus gives up


def test_a_function_janus_gave_up_on_is_written_once_not_at_every_flush(cache_dir,
                                                                         monkeypatch):
    """Its reason was rewritten at every flush (and into any later cache directory: an
    earlier test's gave-up function showed up in this module's directories)."""
    # (no timed flush: one landing inside a call, between its counters, writes the index
    # twice for that call on a loaded machine)
    monkeypatch.setattr(janus.cache.settings, "flush_interval", 3600)
    f = janus.jit(host_float, segments=False, profile_calls=2)
    for k in range(5):
        assert f(tf.ones([3]) * k) == host_float(tf.ones([3]) * k)
    assert f.unsupported is not None
    janus.cache.flush()
    index = rec.read_json(str(_only_function(cache_dir) / "function.json"))
    assert "float" in index["gave_up"], index
    before = recorder.index_writes
    for _ in range(3):
        janus.cache.flush()
    assert recorder.index_writes == before
    f(tf.ones([3]))   # a call changes the counters: written again, with the reason
    janus.cache.flush()
    assert recorder.index_writes == before + 1
    index = rec.read_json(str(_only_function(cache_dir) / "function.json"))
    assert "float" in index["gave_up"] and index["counters"]["calls"] == 6, index


def test_two_threads_on_one_function_get_right_results_and_a_consistent_cache(cache_dir):
    @janus.jit
    def scale(x, k):
        return x * k

    errors = []

    def work(k):
        try:
            for i in range(30):
                value = float(i % 3 + 1)
                got = scale(tf.constant([value, 1.0]), k)
                np.testing.assert_allclose(got.numpy(), [value * k, k])
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in (2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    janus.cache.flush()
    index = rec.read_json(str(_only_function(cache_dir) / "function.json"))
    stats = janus.stats(scale)
    assert index["counters"]["calls"] == stats.calls == 60
    assert sum(c["graph_runs"] for c in index["specializations"].values()) == stats.graph_calls
    listing = janus.cache.store().scan()
    assert listing.problems == []
    assert {s.id for s in listing.specs} == set(index["specializations"])


def _load(path, name="janus_warm_mod"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


WARM_SOURCE = '''
import janus
import tensorflow as tf

@janus.jit
def f(xs, w):
    total = tf.zeros([2])
    for x in xs:
        total = total + x * w
    if tf.reduce_sum(total) > 0:
        total = total * 2.0
    return total
'''


def _warm_calls(f):
    out = []
    for n in (3, 4, 5, 6):
        out.append(f([tf.ones([2]) * i for i in range(n)], tf.constant(0.5)).numpy())
    return out


def test_warm_start_skips_profiling_unless_source_or_versions_changed(cache_dir, tmp_path,
                                                                      monkeypatch):
    path = tmp_path / "warm_mod.py"
    path.write_text(WARM_SOURCE)
    cold = _load(path)
    expected = _warm_calls(cold.f)
    assert janus.stats(cold.f).profile_calls == 2
    janus.cache.flush()

    warm = _load(path)   # a fresh JitFunction, as in a new process
    assert janus.cache.warm_start(warm.f)
    assert janus.cache.is_warm(warm.f)
    got = _warm_calls(warm.f)
    np.testing.assert_allclose(got, expected)
    stats = janus.stats(warm.f)
    # no profiling, and the recorded graph runs without being traced again
    assert (stats.profile_calls, stats.generations, stats.graph_calls) == (0, 0, 4)
    assert warm.f.specializations[0].portable is not None
    assert not janus.cache.warm_start(warm.f)   # only before the first call

    monkeypatch.setattr(rec, "versions", lambda: {"tensorflow": "9.9", "janus": "0",
                                                  "janus_build": "x", "python": "3"})
    assert not janus.cache.warm_start(_load(path).f)   # another TF: ignored
    monkeypatch.undo()

    path.write_text(WARM_SOURCE.replace("total * 2.0", "total * 3.0"))
    edited = _load(path)
    assert not janus.cache.warm_start(edited.f)   # edited source: ignored, profiled afresh
    got = _warm_calls(edited.f)
    assert janus.stats(edited.f).profile_calls == 2
    np.testing.assert_allclose(got[-1], expected[-1] * 1.5)


def _stale_warm_start(tmp_path, name):
    """A warm start whose restored profile does not fit (as if a callee had changed)."""
    path = tmp_path / f"{name}.py"
    path.write_text(WARM_SOURCE)
    expected = _warm_calls(_load(path, name).f)
    janus.cache.flush()
    warm = _load(path, name)
    assert janus.cache.warm_start(warm.f)
    warm.f.profile.sites.clear()   # the branch was "never reached": generation fails
    warm.f._warm_graphs = []       # (and no recorded graph to run instead)
    return warm.f, expected


def test_a_stale_warm_start_never_gives_wrong_results(cache_dir, tmp_path):
    f, expected = _stale_warm_start(tmp_path, "janus_warm_mod2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # without the second hook janus gives up on it
        got = _warm_calls(f)
    np.testing.assert_allclose(got, expected)
    assert not janus.cache.is_warm(f)


def test_a_stale_warm_start_goes_back_to_profiling(cache_dir, tmp_path):
    f, expected = _stale_warm_start(tmp_path, "janus_warm_mod3")
    got = _warm_calls(f)
    np.testing.assert_allclose(got, expected)
    stats = janus.stats(f)
    assert stats.profile_calls == 2 and stats.graph_calls >= 1 and f.unsupported is None


def unconverted(v):
    try:
        return v + 1
    except ValueError:
        raise


def test_janus_logs_lines_for_guards_regen_fallback_heap(cache_dir):
    stream = io.StringIO()
    janus.logs.enable("guards,regen,fallback,heap", stream=stream)
    try:
        Model.step.reset()
        model = Model()
        x = tf.ones([2, 3])
        for n in (2, 2, 2, 3, 3):
            model.step(x, [tf.ones([2, 3])] * n)
        eager = janus.jit(unconverted)   # try/except is not converted: runs eagerly
        eager(tf.ones([1]))
    finally:
        janus.logs.disable()
    text = stream.getvalue()
    assert "janus: Model.step: generated specialization #0" in text
    assert "janus: Model.step: guard failed in specialization #0: len(args[2]) == 2 (actual:" in text
    assert "defers 1 heap write(s) until the graph succeeded: args[0].last = <result>" in text
    assert "runs eagerly (unsupported construct): " in text and "try/except" in text
    before = stream.getvalue()
    Model.step.reset()
    Model().step(x, [tf.ones([2, 3])])
    assert stream.getvalue() == before   # disabled: no more lines


def test_janus_logs_parses_the_environment_spelling():
    assert janus.logs.parse("guards, regen") == {"guards", "regen"}
    assert janus.logs.parse("all") == set(janus.logs.CATEGORIES)
    assert janus.logs.parse("0") == set()


def test_an_unwritable_cache_is_one_warning_never_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    janus.cache.flush()
    monkeypatch.setattr(janus.cache.settings, "directory", str(blocker / "cache"))
    monkeypatch.setattr(janus.cache.settings, "enabled", True)
    monkeypatch.setattr(store_module, "_warned", set())

    @janus.jit
    def add(x):
        return x + 1.0
    with pytest.warns(janus.cache.CacheWarning, match="cannot write to"):
        for _ in range(4):
            np.testing.assert_allclose(add(tf.ones([2])).numpy(), [2.0, 2.0])
        janus.cache.flush()
        janus.cache.flush()
    assert len(store_module._warned) == 1
