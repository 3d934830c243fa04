"""A specialization entry (record + graph file) is written as a unit (F385): a process
that cannot seal records (a garbage key) writes nothing, not even the graph file of an
existing valid entry; an entry whose graph file does not match its record (a crash
between the two writes, an edit, another process's graph of the same id) is treated as
absent and rewritten by the next writer, not "does not match its record" for good."""
from __future__ import annotations

import os
import sys

import pytest
import tensorflow as tf

import janus
from janus.cache import files
from janus.cache import record as rec
from janus.cache.record import CorruptEntry
from janus.cache.store import CacheStore, SpecEntry
from tests.differential import assert_same

store_module = sys.modules["janus.cache.store"]  # (janus.cache.store is also a function)

KEY = "f-0123abcd"
SID = "0123456789ab"


def _record(text: str) -> dict:
    """A well-formed specialization record of graph `text`."""
    return {"format": rec.FORMAT, "kind": "specialization", "id": SID,
            "function": {"key": KEY, "qualname": "f", "module": "m", "filename": "m.py",
                         "first_line": 1, "source_hash": "h"},
            "versions": {}, "plan": [], "guards": [], "in_graph_guards": [], "effects": [],
            "inputs": [], "generated_source": "", "op_histogram": {"Add": 1},
            "structure": {"functions": []}, "created": 1.0, "graph_file": f"{SID}.pbtxt",
            "graph_sha256": rec.sha256(text), "graph_bytes": len(text)}


def _snapshot(root) -> dict:
    return {os.path.relpath(os.path.join(d, n), root): open(os.path.join(d, n), "rb").read()
            for d, _, names in os.walk(root) for n in names if n != ".lock"}


@pytest.fixture
def bad_key(tmp_path, monkeypatch):
    """Switches to a garbage key file (the good one stays cached under its own path)."""
    def switch():
        path = tmp_path / "bad" / "cache.key"
        path.parent.mkdir(mode=0o700)
        path.write_bytes(b"junk\n")
        os.chmod(path, 0o600)
        monkeypatch.setenv("JANUS_CACHE_KEY_FILE", str(path))
    yield switch
    files._keys.pop(str(tmp_path / "bad" / "cache.key"), None)


def test_a_process_that_cannot_seal_does_not_touch_an_existing_entry(tmp_path, bad_key):
    store = CacheStore(str(tmp_path / "cache"))
    assert store.write_spec(_record("node { a }\n"), "node { a }\n")
    before = _snapshot(store.root)
    bad_key()
    other = "node { b }\n"   # the same id, another node order: the graph text differs
    with pytest.raises(CorruptEntry, match="not a janus cache key"):
        store.write_spec(_record(other), other)
    assert _snapshot(store.root) == before


@pytest.mark.parametrize("tear", ["same size graph", "graph edited", "graph missing",
                                  "record torn"])
def test_a_torn_entry_is_rewritten_by_the_next_writer(tmp_path, tear):
    store = CacheStore(str(tmp_path / "cache"))
    text = "node { name: 'a' op: 'Add' }\n"
    record = _record(text)
    assert store.write_spec(record, text)
    path, graph = store.spec_path(KEY, SID), os.path.join(store.function_dir(KEY), f"{SID}.pbtxt")
    if tear == "same size graph":       # (TF's node order differs between processes)
        open(graph, "w").write(text.replace("a", "b"))
    elif tear == "graph edited":
        open(graph, "a").write("node { }\n")
    elif tear == "graph missing":
        os.unlink(graph)
    else:
        open(path, "r+").truncate(10)
    entry = SpecEntry(SID, KEY, path, record, {})
    with pytest.raises(CorruptEntry):
        if tear == "record torn":
            rec.read_json(path, "specialization")
        store.read_graph(entry)
    assert store.write_spec(record, text)   # rewritten: consistent again
    assert store.read_graph(SpecEntry(SID, KEY, path, rec.read_json(path), {})) == text
    assert not store.write_spec(record, text)   # (and then left alone)


def _step(state, x):
    h = x * state.scale + 1.0
    state.last = h
    return tf.reduce_sum(h)


class State:
    def __init__(self):
        self.scale = 2.0
        self.last = None


def test_a_program_with_a_garbage_key_runs_as_graphs_and_records_nothing(cache_dir, bad_key):
    bad_key()
    jitted = janus.jit(_step)
    calls = [(tf.constant([1.0, float(i)]),) for i in range(6)]
    stats = assert_same(_step, calls, State, jitted=jitted)
    janus.cache.flush()
    assert stats.graph_calls >= 3
    # (one warning, from whichever thread flushed first)
    assert any("not using the cache" in m and "not a janus cache key" in m
               for m in store_module._warned)
    assert not os.path.exists(cache_dir)   # no directory, no lock file, no graph file
