"""The file layer: atomic writes, corrupt entries, the codec, merging, bounds."""
from __future__ import annotations

import collections
import json
import os
import threading

import pytest

from janus.cache import record as rec
from janus.cache.record import CorruptEntry
from janus.cache.store import CacheStore, empty_spec_counters


def test_atomic_write_replaces_whole_files_and_leaves_no_temporaries(tmp_path):
    path = str(tmp_path / "x.json")
    rec.write_json(path, {"format": rec.FORMAT, "kind": "k", "v": 1})
    rec.write_json(path, {"format": rec.FORMAT, "kind": "k", "v": 2})
    assert rec.read_json(path, "k")["v"] == 2
    assert os.listdir(tmp_path) == ["x.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = str(tmp_path / "x.json")
    rec.write_json(path, {"format": rec.FORMAT, "kind": "k", "v": 1})

    def crash(*args):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        rec.write_json(path, {"format": rec.FORMAT, "kind": "k", "v": 2})
    monkeypatch.undo()
    assert rec.read_json(path, "k")["v"] == 1
    assert os.listdir(tmp_path) == ["x.json"]


@pytest.mark.parametrize("content, message", [
    (b'{"format": 1, "kind": "k", "v": [1, 2', "not valid JSON"),   # torn write
    (b"", "not valid JSON"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"format": 99, "kind": "k"}', "unknown record format"),
    (b'{"format": 1, "kind": "k"}', "written by an older janus"),   # before records were sealed
    (b'{"format": 2, "kind": "k"}', "checksum does not match"),  # no seal
    (b'{"format": 2, "kind": "k", "mac": "00"}', "checksum does not match"),
])
def test_corrupt_files_are_reported_not_crashed_on(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(CorruptEntry, match=message):
        rec.read_json(str(path), "k")


def test_a_sealed_record_of_another_kind_is_reported(tmp_path):
    path = str(tmp_path / "x.json")
    rec.write_json(path, {"format": rec.FORMAT, "kind": "other"})
    with pytest.raises(CorruptEntry, match="expected a k record"):
        rec.read_json(path, "k")


def test_a_plan_recorded_before_a_field_was_added_takes_its_default():
    from janus.graphgen.plan import Plan
    data = rec.encode_dataclass(Plan().with_scalar("args[1]"))
    del data["precise_floats"]  # (added in session 13)
    assert rec.decode_dataclass(Plan, data) == Plan().with_scalar("args[1]")
    data["unknown"] = rec.encode(True)
    with pytest.raises(ValueError, match="unknown"):
        rec.decode_dataclass(Plan, data)
    del data["unknown"], data["scalars"]  # (has a default too: missing is fine)
    assert rec.decode_dataclass(Plan, data) == Plan()


def test_codec_round_trips_plans_profiles_and_class_references():
    from janus.graphgen.plan import Plan
    from janus.profiler.profile import Profile, SiteProfile
    plan = Plan().with_dynamic_dims("args[0]", [0]).with_dynamic_list("args[1]") \
        .with_general_branch(("f", 3))
    assert rec.decode_dataclass(Plan, json.loads(json.dumps(rec.encode_dataclass(plan)))) == plan
    profile = Profile(8)
    profile.calls = 2
    profile.signatures = [("tuple", 1, (("tensor", "float32", (2, None)),))]
    site = profile.site("f", 3)
    site.outcomes[True] += 2
    site.trip_counts[4] += 1
    site.sequence = [True, False]
    profile.recursive["T.encode"] = 0
    profile.cases["T.encode"] = [(("is_leaf", True), ("type", int))]
    back = rec.decode(json.loads(json.dumps(rec.encode(profile))))
    assert type(back) is Profile and vars(back) == vars(profile)
    assert back.sites[("f", 3)] == site and isinstance(back.sites[("f", 3)], SiteProfile)
    assert type(back.sites[("f", 3)].outcomes) is collections.Counter


def test_codec_refuses_user_objects_and_rebuilds_only_janus_classes():
    class Mine:
        pass
    with pytest.raises(TypeError):
        rec.encode(Mine())
    with pytest.raises(TypeError):
        rec.encode(object())
    with pytest.raises(ValueError, match="not a janus data class"):
        rec.decode({"obj": ["subprocess", "Popen", []]})
    with pytest.raises(ValueError, match="is not a class"):
        rec.decode({"cls": ["os", "system"]})
    with pytest.raises(ValueError, match="not imported"):
        rec.decode({"cls": ["surely_not_a_module_xyz", "C"]})


def _index(store, key, sid, runs, **extra):
    def mutate(index):
        index["function"] = {"key": key, "qualname": key, "source_hash": "s"}
        entry = index["specializations"].setdefault(sid, empty_spec_counters())
        entry["graph_runs"] += runs
        entry.update(extra)
    store.update_index(key, mutate)
    path = os.path.join(store.root, key, f"{sid}.json")
    rec.write_json(path, {"format": rec.FORMAT, "kind": "specialization", "id": sid})


def test_concurrent_index_updates_add_up(tmp_path):
    store = CacheStore(str(tmp_path))

    def work():
        for _ in range(25):
            store.update_index("f-0000abcd", lambda i: i["counters"].__setitem__(
                "calls", i["counters"]["calls"] + 1))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.read_index("f-0000abcd")["counters"]["calls"] == 100


def test_eviction_keeps_the_most_used_within_both_bounds(tmp_path):
    store = CacheStore(str(tmp_path))
    for k, key in enumerate(["a-0000000a", "b-0000000b"]):
        for n in range(4):
            _index(store, key, f"{k}{n}".ljust(12, "0"), runs=n * 10)
    _index(store, "a-0000000a", "0s".ljust(12, "0").replace("s", "f"), runs=1000,
           source_hash="old")  # stale: made from an older source
    evicted = store.evict(max_per_function=3, max_total=5, keep={"130000000000"})
    left = {k: sorted(store.read_index(k)["specializations"]) for k in ["a-0000000a", "b-0000000b"]}
    assert sum(map(len, left.values())) == 5 and all(len(v) <= 3 for v in left.values())
    assert "0f0000000000" in evicted          # stale goes first, however much it ran
    assert "030000000000" in left["a-0000000a"] and "130000000000" in left["b-0000000b"]
    assert "100000000000" in evicted          # least used
    for sid in evicted:                       # files gone with their index entries
        assert not any(os.path.exists(os.path.join(str(tmp_path), k, sid + ".json"))
                       for k in left)


def test_scan_skips_corrupt_entries_with_a_reason(tmp_path):
    store = CacheStore(str(tmp_path))
    _index(store, "a-0000000a", "aaaaaaaaaaaa", runs=1)
    (tmp_path / "b-0000000b").mkdir()
    (tmp_path / "b-0000000b" / "function.json").write_text('{"format": 1, "kind": "func')
    rec.write_json(str(tmp_path / "b-0000000b" / "bbbbbbbbbbbb.json"),
                   {"format": rec.FORMAT, "kind": "specialization"})
    (tmp_path / "unrelated").mkdir()
    listing = store.scan()
    assert [f.key for f in listing.functions] == ["a-0000000a"]
    assert listing.functions[0].specs == []   # its record lacks every field: skipped
    text = "\n".join(listing.problems)
    assert "b-0000000b/function.json: not valid JSON" in text
    assert "bbbbbbbbbbbb.json: field 'id' missing" in text
    assert "aaaaaaaaaaaa.json: field 'function' missing" in text


def test_clear_deletes_only_janus_files(tmp_path):
    store = CacheStore(str(tmp_path))
    _index(store, "a-0000000a", "aaaaaaaaaaaa", runs=1)
    _index(store, "b-0000000b", "bbbbbbbbbbbb", runs=1)
    (tmp_path / "b-0000000b" / "notes.txt").write_text("mine")
    (tmp_path / "keep-me").mkdir()
    assert store.clear() == (2, 2)
    assert sorted(os.listdir(tmp_path)) == [".lock", "b-0000000b", "keep-me"]
    assert os.listdir(tmp_path / "b-0000000b") == ["notes.txt"]


def test_a_fifo_where_a_cache_file_was_is_refused_without_waiting(tmp_path):
    """Opening a named pipe waits for a writer: a FIFO put in the cache hung the first
    jitted call (its warm start) and `janus cache list`."""
    from janus.cache import files

    directory = tmp_path / "c"
    directory.mkdir(mode=0o700)
    path = directory / "warm.json"
    os.mkfifo(path, 0o600)
    outcome = []

    def read():
        try:
            files.read_bytes(str(path))
        except files.UnsafeEntry as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive() and outcome and "regular" in str(outcome[0])
