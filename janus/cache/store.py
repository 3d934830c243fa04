"""The cache directory: one directory per function, its index, its specializations.

    <cache dir>/
      .lock                       serializes read-modify-write of indexes across processes
      <Qualname>-<hash>/          one per function (module + qualname + file)
        function.json             the function's index: identity, counters summed over
                                  every process, per-specialization counters, failure
                                  history, fallback / give-up reasons
        warm.json                 profile + plan for a warm start, per source/version key
        <id>.json                 a specialization record (see record.py), written once
        <id>.pbtxt                its graph: GraphDef text with the function library

Content files (`<id>.json`, `<id>.pbtxt`) are immutable and written before the index
names them. Indexes are changed only under the lock, by merging deltas, so two
processes flushing at once add up instead of overwriting each other. Every write
is atomic (record.atomic_write). Readers need no lock.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import threading
import time
import warnings

from janus.cache import record as rec
from janus.cache.record import CorruptEntry

_FUNCTION_DIR = re.compile(r"^[A-Za-z0-9_.]+-[0-9a-f]{8}$")
_SPEC_FILE = re.compile(r"^([0-9a-f]{12})\.json$")
_OWN_FILE = re.compile(r"^(function\.json|warm\.json|[0-9a-f]{12}\.(json|pbtxt)|\.tmp-.*)$")
LOCK_TIMEOUT = 10.0
WARM_KEYS_KEPT = 4


class CacheWarning(UserWarning):
    """Something in the cache directory could not be used; janus carries on without it."""


class CacheBusy(Exception):
    pass


def empty_counters() -> dict:
    return {"calls": 0, "graph_calls": 0, "profile_calls": 0, "fallback_calls": 0,
            "generations": 0, "generation_failures": 0, "guard_failures": {},
            "fallback_reasons": {}, "time_profiling": 0.0, "time_generating": 0.0,
            "time_graph": 0.0, "time_fallback": 0.0, "time_guards": 0.0}


def empty_spec_counters() -> dict:
    return {"graph_runs": 0, "time_graph": 0.0, "generations": 0, "generation_time": 0.0,
            "guard_failures": {}, "created": time.time(), "last_used": 0.0}


def is_current(index: dict, entry: dict) -> bool:
    """Was this specialization made from the function's latest source, by the latest versions?"""
    function = index.get("function") or {}
    if entry.get("source_hash") and entry["source_hash"] != function.get("source_hash"):
        return False
    if entry.get("versions") and index.get("versions") and entry["versions"] != index["versions"]:
        return False
    return True


def staleness(index: dict | None, record: dict) -> str:
    """'' if current, else why the specialization can no longer be used as is."""
    if not index:
        return ""
    function = index.get("function") or {}
    if function.get("source_hash") and record["function"].get("source_hash") != function["source_hash"]:
        return "stale: the function's source changed since"
    versions = index.get("versions")
    if versions and record.get("versions") != versions:
        changed = [k for k in sorted(set(versions) | set(record.get("versions", {})))
                   if versions.get(k) != record.get("versions", {}).get(k)]
        return f"stale: made by other versions ({', '.join(changed)})"
    return ""


def add_counters(into: dict, delta: dict) -> dict:
    """into += delta, recursively for dicts of numbers."""
    for key, value in delta.items():
        if isinstance(value, dict):
            add_counters(into.setdefault(key, {}), value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            into[key] = into.get(key, 0) + value
        else:
            into[key] = value
    return into


@dataclasses.dataclass
class SpecEntry:
    id: str
    function_key: str
    path: str
    record: dict
    counters: dict

    @property
    def graph_path(self) -> str:
        return os.path.join(os.path.dirname(self.path), self.record.get("graph_file", ""))


@dataclasses.dataclass
class FunctionEntry:
    key: str
    path: str
    index: dict | None           # function.json, None if missing or corrupt
    specs: list[SpecEntry]

    @property
    def identity(self) -> dict:
        if self.index is not None:
            return self.index.get("function", {})
        return self.specs[0].record.get("function", {}) if self.specs else {"key": self.key}

    @property
    def qualname(self) -> str:
        return self.identity.get("qualname", self.key)

    @property
    def counters(self) -> dict:
        return (self.index or {}).get("counters") or empty_counters()


@dataclasses.dataclass
class Listing:
    root: str
    functions: list[FunctionEntry]
    problems: list[str]

    @property
    def specs(self) -> list[SpecEntry]:
        return [s for f in self.functions for s in f.specs]


class CacheStore:
    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._lock_file = None

    # -- locking
    @contextlib.contextmanager
    def lock(self, timeout: float = LOCK_TIMEOUT):
        """Exclusive across threads and processes (flock on <root>/.lock)."""
        if not self._thread_lock.acquire(timeout=timeout):
            raise CacheBusy(f"{self.root} is busy (thread lock)")
        try:
            if self._depth == 0:
                self._acquire_file(timeout)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release_file()
        finally:
            self._thread_lock.release()

    def _acquire_file(self, timeout: float):
        os.makedirs(self.root, exist_ok=True)
        f = open(os.path.join(self.root, ".lock"), "a+b")
        try:
            import fcntl
        except ImportError:  # Windows: atomic replaces still hold; merges may race
            self._lock_file = f
            return
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    f.close()
                    raise CacheBusy(f"{self.root} is locked by another process") from None
                time.sleep(0.005)
        self._lock_file = f

    def _release_file(self):
        f, self._lock_file = self._lock_file, None
        if f is not None:
            f.close()  # closing releases the flock

    # -- paths
    def function_dir(self, key: str) -> str:
        return os.path.join(self.root, key)

    def spec_path(self, key: str, sid: str) -> str:
        return os.path.join(self.root, key, f"{sid}.json")

    # -- writing
    def write_spec(self, record: dict, graph_text: str) -> bool:
        """Write a specialization's content files unless a valid copy exists. No lock needed:
        the content is determined by its id, and both files are replaced atomically."""
        key, sid = record["function"]["key"], record["id"]
        directory = self.function_dir(key)
        os.makedirs(directory, exist_ok=True)
        path = self.spec_path(key, sid)
        graph_path = os.path.join(directory, record["graph_file"])
        try:
            existing = rec.read_json(path, "specialization")
            if os.path.getsize(graph_path) == existing.get("graph_bytes"):
                return False  # another process (or an earlier run) wrote the same content
        except (OSError, CorruptEntry):
            pass
        rec.atomic_write(graph_path, graph_text)
        rec.write_json(path, record)
        return True

    def read_index(self, key: str) -> dict | None:
        path = os.path.join(self.function_dir(key), "function.json")
        try:
            index = rec.read_json(path, "function")
        except FileNotFoundError:
            return None
        trouble = rec.check_index(index)
        if trouble:
            raise CorruptEntry(f"{path}: {trouble}")
        return index

    def update_index(self, key: str, mutate) -> dict | None:
        """Read-modify-write function.json under the lock. `mutate(index)` changes it in
        place (index is a fresh one if missing or corrupt; the corrupt one is replaced)."""
        with self.lock():
            path = os.path.join(self.function_dir(key), "function.json")
            try:
                index = self.read_index(key)
            except CorruptEntry as exc:
                warnings.warn(f"janus cache: replacing a corrupt index: {exc}", CacheWarning,
                              stacklevel=2)
                index = None
            if index is None:
                index = {"format": rec.FORMAT, "kind": "function", "created": time.time(),
                         "counters": empty_counters(), "specializations": {},
                         "failures": [], "events": [], "processes": 0}
            mutate(index)
            index["updated"] = time.time()
            os.makedirs(os.path.dirname(path), exist_ok=True)
            rec.write_json(path, index)
            return index

    def read_warm(self, key: str) -> dict:
        path = os.path.join(self.function_dir(key), "warm.json")
        try:
            return rec.read_json(path, "warm").get("states", {})
        except FileNotFoundError:
            return {}

    def write_warm(self, key: str, state_key: str, state: dict) -> None:
        with self.lock():
            try:
                states = self.read_warm(key)
            except CorruptEntry as exc:
                warnings.warn(f"janus cache: replacing a corrupt warm-start entry: {exc}",
                              CacheWarning, stacklevel=2)
                states = {}
            state = dict(state, saved=time.time())
            states[state_key] = state
            kept = sorted(states.items(), key=lambda kv: kv[1].get("saved", 0))[-WARM_KEYS_KEPT:]
            os.makedirs(self.function_dir(key), exist_ok=True)
            rec.write_json(os.path.join(self.function_dir(key), "warm.json"),
                           {"format": rec.FORMAT, "kind": "warm", "states": dict(kept)})

    # -- bounds
    def evict(self, max_per_function: int, max_total: int, keep: set = frozenset()) -> list[str]:
        """Drop the least used specializations (fewest graph runs, then least recently
        used) beyond the bounds; never those in `keep`. Returns the evicted ids."""
        evicted = []
        with self.lock():
            indexes = {}
            for key in self._function_keys():
                try:
                    index = self.read_index(key)
                except CorruptEntry:
                    continue
                if index is not None:
                    self._adopt_orphans(key, index)
                    indexes[key] = index
            changed = set()

            def score(item):
                """Stale entries (another source or versions) go first, then the least used."""
                key, sid, c = item
                return (is_current(indexes[key], c), c.get("graph_runs", 0),
                        c.get("last_used", 0) or c.get("created", 0))

            for key, index in indexes.items():
                specs = index["specializations"]
                if len(specs) > max_per_function:
                    items = sorted(((key, s, c) for s, c in specs.items() if s not in keep),
                                   key=score)
                    for item in items[:len(specs) - max_per_function]:
                        self._drop(indexes, item[0], item[1], evicted, changed)
            total = sum(len(i["specializations"]) for i in indexes.values())
            if total > max_total:
                items = sorted(((k, s, c) for k, i in indexes.items()
                                for s, c in i["specializations"].items() if s not in keep),
                               key=score)
                for item in items[:total - max_total]:
                    self._drop(indexes, item[0], item[1], evicted, changed)
            for key in changed:
                index = indexes[key]
                if index["specializations"] or index.get("gave_up"):
                    rec.write_json(os.path.join(self.function_dir(key), "function.json"), index)
                else:
                    self._remove_function(key)
        return evicted

    def _drop(self, indexes, key, sid, evicted, changed):
        index = indexes[key]
        index["specializations"].pop(sid, None)
        index["evicted"] = index.get("evicted", 0) + 1
        for suffix in (".json", ".pbtxt"):
            try:
                os.unlink(os.path.join(self.function_dir(key), sid + suffix))
            except FileNotFoundError:
                pass
        evicted.append(sid)
        changed.add(key)

    def _adopt_orphans(self, key: str, index: dict) -> None:
        """Content files whose index entry was never written (a crash in between)."""
        try:
            names = os.listdir(self.function_dir(key))
        except OSError:
            return
        for name in names:
            match = _SPEC_FILE.match(name)
            if match and match.group(1) not in index["specializations"]:
                index["specializations"][match.group(1)] = empty_spec_counters()

    # -- reading
    def exists(self) -> bool:
        return os.path.isdir(self.root)

    def _function_keys(self) -> list[str]:
        try:
            entries = sorted(os.scandir(self.root), key=lambda e: e.name)
        except OSError:
            return []
        return [e.name for e in entries if e.is_dir() and _FUNCTION_DIR.match(e.name)]

    def scan(self) -> Listing:
        """Everything in the cache that can be read; what cannot is in `problems`."""
        functions, problems = [], []
        for key in self._function_keys():
            directory = self.function_dir(key)
            try:
                index = self.read_index(key)
            except CorruptEntry as exc:
                problems.append(f"skipping a corrupt function index: {exc}")
                index = None
            counters = (index or {}).get("specializations", {})
            try:
                names = sorted(os.listdir(directory))
            except OSError as exc:
                problems.append(f"cannot read {directory}: {exc}")
                continue
            on_disk = [m.group(1) for m in map(_SPEC_FILE.match, names) if m]
            specs = []
            for sid in on_disk:
                path = os.path.join(directory, f"{sid}.json")
                try:
                    record = rec.read_json(path, "specialization")
                except FileNotFoundError:
                    continue  # evicted or cleared meanwhile
                except CorruptEntry as exc:
                    problems.append(f"skipping a corrupt entry: {exc}")
                    continue
                trouble = rec.check_spec(record, sid)
                if trouble:
                    problems.append(f"skipping a corrupt entry: {path}: {trouble}")
                    continue
                spec_counters = dict(empty_spec_counters(), created=record.get("created", 0))
                spec_counters.update(counters.get(sid, {}))
                specs.append(SpecEntry(sid, key, path, record, spec_counters))
            for sid in counters:
                if sid not in on_disk:
                    problems.append(f"{key}: specialization {sid} is in the index but its "
                                    "record is missing")
            if specs or index is not None:
                specs.sort(key=lambda s: s.record.get("created", 0))
                functions.append(FunctionEntry(key, directory, index, specs))
        return Listing(self.root, functions, problems)

    def read_graph(self, spec: SpecEntry) -> str:
        path = spec.graph_path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise CorruptEntry(f"{path}: the graph file is missing ({exc.strerror or exc})") from None
        if rec.sha256(data) != spec.record.get("graph_sha256"):
            raise CorruptEntry(f"{path}: the graph file does not match its record "
                               "(truncated or modified)")
        return data.decode("utf-8")

    def size(self) -> int:
        total = 0
        for directory, _, files in os.walk(self.root):
            for name in files:
                try:
                    total += os.path.getsize(os.path.join(directory, name))
                except OSError:
                    pass
        return total

    # -- clearing
    def clear(self, keys: list[str] | None = None) -> tuple[int, int]:
        """Remove functions (all when `keys` is None). Only janus's own files are deleted.
        Returns (functions removed, specializations removed)."""
        removed_functions = removed_specs = 0
        with self.lock():
            for key in (self._function_keys() if keys is None else keys):
                directory = self.function_dir(key)
                try:
                    names = os.listdir(directory)
                except OSError:
                    continue
                removed_specs += sum(1 for n in names if _SPEC_FILE.match(n))
                self._remove_function(key)
                removed_functions += 1
        return removed_functions, removed_specs

    def _remove_function(self, key: str) -> None:
        directory = self.function_dir(key)
        for name in os.listdir(directory):
            if _OWN_FILE.match(name):
                try:
                    os.unlink(os.path.join(directory, name))
                except FileNotFoundError:
                    pass
        try:
            os.rmdir(directory)
        except OSError:
            pass  # something that is not ours is in there: leave it
