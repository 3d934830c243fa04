"""Every read of a cache file is bounded (F386): a record, index or warm-start file over
`janus.cache.settings.max_record_bytes`, a graph file over `max_graph_bytes`, a key file
over 32 bytes is refused before it is read (a 2 GB sparse file costs nothing), with one
message naming the file and the limit, and is treated as corrupt (regenerated); a writer
refuses to write what readers would refuse."""
from __future__ import annotations

import os
import sys
import time

import pytest
import tensorflow as tf

import janus
from janus.cache import files
from janus.cache import record as rec
from janus.cache.record import CorruptEntry
from janus.cache.store import CacheStore
from tests.cache.test_cache_entries import KEY, SID, _record
from tests.differential import assert_same

store_module = sys.modules["janus.cache.store"]  # (janus.cache.store is also a function)
HUGE = 2 * 2**30


def _sparse(path, size=HUGE):
    with open(path, "r+b" if os.path.exists(path) else "wb") as f:
        f.truncate(size)


def test_a_huge_sparse_record_is_refused_before_it_is_read(tmp_path):
    path = str(tmp_path / "x.json")
    rec.write_json(path, {"format": rec.FORMAT, "kind": "k"})
    _sparse(path)
    started = time.monotonic()
    with pytest.raises(files.TooLarge, match=r"x.json is 2048.0 MB, over the 128.0 MB limit "
                                             r".*janus.cache.settings.max_record_bytes"):
        rec.read_json(path, "k")
    assert time.monotonic() - started < 1.0


def test_the_bounds_are_settings_and_bad_values_mean_the_default(tmp_path, monkeypatch):
    path = str(tmp_path / "x.json")
    rec.write_json(path, {"format": rec.FORMAT, "kind": "k", "v": "x" * 2000})
    monkeypatch.setattr(janus.cache.settings, "max_record_bytes", 1000)
    with pytest.raises(files.TooLarge, match="over the 1000 bytes limit"):
        rec.read_json(path, "k")
    with pytest.raises(files.TooLarge):   # nor is one written that would be refused
        rec.write_json(str(tmp_path / "y.json"), {"format": rec.FORMAT, "kind": "k",
                                                  "v": "x" * 2000})
    assert not os.path.exists(tmp_path / "y.json")
    assert [n for n in os.listdir(tmp_path) if n.startswith(".tmp")] == []
    for bad in (0, -5, "big", 1.5, None):
        monkeypatch.setattr(janus.cache.settings, "max_record_bytes", bad)
        assert rec.read_json(path, "k")["v"] == "x" * 2000


def test_a_huge_key_file_is_not_a_key(tmp_path, monkeypatch):
    key_file = tmp_path / "conf" / "cache.key"
    monkeypatch.setenv("JANUS_CACHE_KEY_FILE", str(key_file))
    key_file.parent.mkdir(mode=0o700)
    key_file.write_bytes(os.urandom(32))
    os.chmod(key_file, 0o600)
    _sparse(key_file)
    try:
        with pytest.raises(CorruptEntry, match="is not a janus cache key"):
            files.key()
    finally:
        files._keys.pop(str(key_file), None)


def test_a_graph_file_over_its_bound_is_not_read_nor_written(tmp_path, monkeypatch):
    store = CacheStore(str(tmp_path / "cache"))
    text = "node { name: 'a' op: 'Add' }\n" * 10
    assert store.write_spec(_record(text), text)
    [spec] = store.scan().specs
    monkeypatch.setattr(janus.cache.settings, "max_graph_bytes", 100)
    with pytest.raises(files.TooLarge, match=rf"{SID}.pbtxt is 290 bytes, over the 100 bytes "
                                             r"limit .*max_graph_bytes"):
        store.read_graph(spec)
    with pytest.raises(files.TooLarge):
        store.write_spec(_record(text + " "), text + " ")
    monkeypatch.undo()
    assert store.read_graph(spec) == text


def test_the_cli_names_a_huge_file_and_its_limit(tmp_path):
    from tests.cli.test_cli_cache import run_main
    store = CacheStore(str(tmp_path / "cache"))
    text = "node { name: 'a' op: 'Add' }\n"
    store.write_spec(_record(text), text)
    _sparse(store.spec_path(KEY, SID))
    listed = run_main(["cache", "list", "--cache-dir", store.root])
    assert "Traceback" not in listed.stderr, str(listed)
    assert f"skipping a corrupt entry: {store.spec_path(KEY, SID)} is 2048.0 MB, over the " \
           "128.0 MB limit" in listed.stderr, str(listed)


def _step(state, x):
    state.total = state.total + tf.reduce_sum(x)
    return x * 3.0 - 1.0


class State:
    def __init__(self):
        self.total = tf.constant(0.0)


def test_a_huge_warm_start_file_costs_nothing_and_is_replaced(cache_dir):
    calls = [(tf.constant([float(i), 1.0]),) for i in range(6)]
    first = janus.jit(_step)
    assert assert_same(_step, calls, State, jitted=first).graph_calls >= 3
    janus.cache.flush()
    [warm] = [os.path.join(d, n) for d, _, names in os.walk(cache_dir) for n in names
              if n == "warm.json"]
    _sparse(warm)
    second = janus.jit(_step)
    started = time.monotonic()
    stats = assert_same(_step, calls, State, jitted=second)
    assert time.monotonic() - started < 20 and stats.graph_calls >= 3
    assert not janus.cache.is_warm(second)
    assert any(f"{warm} is 2048.0 MB, over the 128.0 MB limit" in m for m in store_module._warned)
    janus.cache.flush()
    assert os.path.getsize(warm) < 2**20   # rewritten, as a corrupt entry is
    third = janus.jit(_step)
    assert assert_same(_step, calls, State, jitted=third).graph_calls >= 3
    assert janus.cache.is_warm(third)
