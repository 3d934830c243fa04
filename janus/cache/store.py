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

Consistency across processes: every change of a function directory (writing a
specialization's content files and naming it in the index, merging counter deltas into
the index, evicting: deleting the record, then its graph, then the index entry) happens
under one exclusive flock on `.lock`, so at every moment another process can observe,
the index names exactly the records on disk (a crash in between leaves at most a
record the index does not name yet: it is adopted by the next eviction pass). Readers
that need a consistent view of several files (`scan`, hence `janus cache list/stats`)
take the lock shared; single-file readers need none (every write is an atomic replace).

Trust: the cache directory and everything in it must be owned by the current user and
not writable by group or others (files.py); directories are created 0700, files 0600.
A directory that is not ours is not used at all (one warning).
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import re
import threading
import time

from janus import notes
from janus.cache import files
from janus.cache import record as rec
from janus.cache.config import settings
from janus.cache.files import CorruptEntry, OldEntry, UnsafeEntry, UnusableKey

_FUNCTION_DIR = re.compile(r"^[A-Za-z0-9_.]+-[0-9a-f]{8}$")
_SPEC_FILE = re.compile(r"^([0-9a-f]{12})\.json$")
_OWN_FILE = re.compile(r"^(function\.json|warm\.json|[0-9a-f]{12}\.(json|pbtxt)|\.tmp-.*)$")
LOCK_TIMEOUT = 10.0
WARM_KEYS_KEPT = 4


log = logging.getLogger("janus.cache")


class CacheWarning(UserWarning):
    """Something in the cache directory could not be used; janus carries on without it."""


class CacheBusy(Exception):
    pass


_warned: set = set()
_stores: dict = {}


def warn_once(message: str) -> None:
    """One warning per distinct problem; the program goes on."""
    if message not in _warned:
        _warned.add(message)
        notes.note(message, CacheWarning, 3)


def reject(exc: Exception) -> None:
    """A cache entry that cannot be used: one warning (the same wherever it is met: reading
    it for a warm start, or replacing it with a regenerated one). An older janus's
    entry is just replaced."""
    if isinstance(exc, OldEntry):
        log.info("janus cache: replacing %s", exc)
        return
    if isinstance(exc, UnusableKey):   # (the recorder says the same: one warning)
        warn_once(f"janus cache: not using the cache: {exc}")
        return
    warn_once(f"janus cache: ignoring an entry and regenerating it: {exc}")


def current_store() -> "CacheStore":
    """The store of the configured cache directory (one per directory and process)."""
    root = settings.resolved_directory()
    store = _stores.get(root)
    if store is None:
        store = _stores[root] = CacheStore(root)
    return store


def forget_stores() -> None:
    """After fork: the child makes its own stores (locks are not shared with the parent)."""
    _stores.clear()


def empty_counters() -> dict:
    return {"calls": 0, "graph_calls": 0, "profile_calls": 0, "fallback_calls": 0,
            "generations": 0, "generation_failures": 0, "guard_failures": {},
            "fallback_reasons": {}, "time_profiling": 0.0, "time_generating": 0.0,
            "time_graph": 0.0, "time_fallback": 0.0, "time_guards": 0.0, "plain_calls": 0,
            "time_plain": 0.0}


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

    # -- trust
    def check_root(self) -> None:
        """UnsafeEntry if the cache directory exists but is not ours alone."""
        try:
            files.check_dir(self.root)
        except FileNotFoundError:
            pass

    def _make_dir(self, path: str) -> None:
        files.ensure_dir(self.root)
        if path != self.root:
            files.ensure_dir(path)

    # -- locking
    @contextlib.contextmanager
    def lock(self, timeout: float = LOCK_TIMEOUT):
        """Exclusive across threads and processes (flock on <root>/.lock)."""
        if not self._thread_lock.acquire(timeout=timeout):
            raise CacheBusy(f"{self.root} is busy (thread lock)")
        try:
            if self._depth == 0:
                self._make_dir(self.root)
                self._lock_file = self._flock(timeout, shared=False)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release_file()
        finally:
            self._thread_lock.release()

    @contextlib.contextmanager
    def shared_lock(self, timeout: float = LOCK_TIMEOUT):
        """Shared with other readers, exclusive of writers: a consistent view of the cache.
        Without a lock file (a read-only or missing cache) it reads without one."""
        if self._depth:      # this process is the writer already
            yield
            return
        try:
            lock_file = self._flock(timeout, shared=True)
        except (OSError, UnsafeEntry, CacheBusy):   # best effort: read without it
            lock_file = None
        try:
            yield
        finally:
            if lock_file is not None:
                os.close(lock_file)

    def _flock(self, timeout: float, shared: bool):
        path = os.path.join(self.root, ".lock")
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | \
            getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags, 0o600)
        trouble = files.problem_with(os.fstat(fd))
        if trouble:
            os.close(fd)
            raise UnsafeEntry(f"{path} {trouble}")
        try:
            import fcntl
        except ImportError:  # Windows: atomic replaces still hold; merges may race
            return fd
        deadline = time.monotonic() + timeout
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise CacheBusy(f"{self.root} is locked by another process") from None
                time.sleep(0.005)

    def _release_file(self):
        fd, self._lock_file = self._lock_file, None
        if fd is not None:
            os.close(fd)  # closing releases the flock

    # -- paths
    def function_dir(self, key: str) -> str:
        return os.path.join(self.root, key)

    def spec_path(self, key: str, sid: str) -> str:
        return os.path.join(self.root, key, f"{sid}.json")

    # -- writing
    def write_spec(self, record: dict, graph_text: str) -> bool:
        """Write a specialization's content files unless a consistent copy exists (its
        record unseals and its graph file is the one the record was sealed with). Callers
        that then name it in the index hold the lock across both (module docstring).

        The record is sealed before anything is written (a process that cannot seal, a
        bad key, writes nothing), and an entry is replaced as a unit: the graph, then its
        record, each an atomic replace, both under the lock; an entry torn by a crash in
        between (or edited) does not match, so the next writer replaces it."""
        key, sid = record["function"]["key"], record["id"]
        directory = self.function_dir(key)
        sealed = files.seal(record)
        files.check_size(self.spec_path(key, sid), len(sealed.encode("utf-8")),
                         "max_record_bytes")
        with self.lock():
            self._make_dir(directory)
            path = self.spec_path(key, sid)
            graph_path = os.path.join(directory, record["graph_file"])
            if self._consistent(path, sid):
                return False  # another process (or an earlier run) wrote the same content
            files.atomic_write(graph_path, graph_text, "max_graph_bytes")
            files.atomic_write(path, sealed)   # last: a record names the graph it matches
            return True

    def _consistent(self, path: str, sid: str) -> bool:
        """Whether the specialization record at `path` unseals, is well formed, and its
        graph file is the one it was sealed with."""
        try:
            existing = rec.read_json(path, "specialization")
            if rec.check_spec(existing, sid):
                return False
            self.read_graph(SpecEntry(sid, "", path, existing, {}))
            return True
        except (OSError, CorruptEntry):
            return False

    def has_spec(self, key: str, sid: str) -> bool:
        return os.path.exists(self.spec_path(key, sid))

    def read_index(self, key: str) -> dict | None:
        self.check_root()
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
                reject(exc)
                index = None
            if index is None:
                index = {"format": rec.FORMAT, "kind": "function", "created": time.time(),
                         "counters": empty_counters(), "specializations": {},
                         "failures": [], "events": [], "processes": 0}
            mutate(index)
            index["updated"] = time.time()
            self._make_dir(os.path.dirname(path))
            rec.write_json(path, index)
            return index

    def read_warm(self, key: str) -> dict:
        self.check_root()
        path = os.path.join(self.function_dir(key), "warm.json")
        try:
            return rec.read_json(path, "warm").get("states", {})
        except FileNotFoundError:
            return {}

    def write_warm(self, key: str, state_key: str, state: dict) -> None:
        self.update_warm(key, state_key, lambda old: state)

    def update_warm(self, key: str, state_key: str, mutate) -> None:
        """Under the lock: the warm-start state `state_key` of function `key` becomes
        `mutate(the current one or None)` (None: left as it is)."""
        with self.lock():
            try:
                states = self.read_warm(key)
            except CorruptEntry as exc:
                reject(exc)
                states = {}
            state = mutate(states.get(state_key))
            if state is None:
                return
            states[state_key] = dict(state, saved=time.time())
            kept = sorted(states.items(), key=lambda kv: kv[1].get("saved", 0))[-WARM_KEYS_KEPT:]
            self._make_dir(self.function_dir(key))
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
        """Everything in the cache that can be read; what cannot is in `problems`. Taken
        under the shared lock: no writer or evictor is half-way meanwhile."""
        try:
            self.check_root()
        except UnsafeEntry as exc:
            return Listing(self.root, [], [f"not using the cache directory: {exc}"])
        with self.shared_lock():
            return self._scan()

    def _scan(self) -> Listing:
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
        """The graph text of a specialization; CorruptEntry if it is missing, too large or not
        the one its record was sealed with (a writer replaces such an entry: write_spec)."""
        path = spec.graph_path
        try:
            data = files.read_bytes(path, bound="max_graph_bytes")
        except OSError as exc:
            raise CorruptEntry(f"{path}: the graph file is missing ({exc.strerror or exc})") from None
        if rec.sha256(data) != spec.record.get("graph_sha256"):
            raise CorruptEntry(f"{path}: the graph file does not match its record "
                               "(truncated or modified)")
        return data.decode("utf-8", errors="replace")

    def size(self) -> int:
        total = 0
        for directory, _, names in os.walk(self.root):
            for name in names:
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
