"""The recorder: listens to janus.events and keeps the cache directory up to date.

Nothing is written on the hot path. The event callbacks only note what happened
(a new specialization, a failure reason) in memory; a background thread writes:
a new specialization's record right after it was generated, the counters at
most every `settings.flush_interval` seconds when they changed, and everything
once more at exit. Counters are flushed as deltas merged into the on-disk sums
under the cache lock, so concurrent processes add up. Graph runs are not even an
event the recorder listens to: it reads `spec.calls` / `jit.stats` when flushing.

Any I/O problem (read-only home, full disk) is one warning; the program never fails
because of the cache.
"""
from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
import time
import weakref

from janus import events, forks
from janus.cache import files, portable, warm
from janus.cache import record as rec
from janus.cache.config import settings
from janus.cache.files import CorruptEntry, UnsafeEntry
from janus.cache.store import (CacheBusy, CacheStore, add_counters, current_store,
                               empty_spec_counters, forget_stores, warn_once)
from janus.graphgen import xla_trial
from janus.transform import convert

log = logging.getLogger("janus.cache")
_STAT_NUMBERS = ("calls", "graph_calls", "profile_calls", "fallback_calls", "generations",
                 "generation_failures", "time_profiling", "time_generating", "time_graph",
                 "time_fallback", "time_guards", "segmented_calls", "segment_graph_calls",
                 "plain_calls", "time_plain")


def _copy_counter(counter) -> dict:
    for _ in range(5):
        try:
            return {rec.normalize(str(k)): v for k, v in list(counter.items())}
        except RuntimeError:  # changed size while another thread counted
            continue
    return {}


def _stats_snapshot(stats) -> dict:
    snap = {name: getattr(stats, name, 0) for name in _STAT_NUMBERS}
    snap["guard_failures"] = _copy_counter(stats.guard_failures)
    snap["fallback_reasons"] = _copy_counter(stats.fallback_reasons)
    return snap


def _split_summary(state) -> dict | None:
    """The summary of the function's split at graph breaks (fallback/split_report.py)."""
    jit = state.ref()
    segmented = getattr(jit, "segmented", None) if jit is not None else None
    return segmented.summary() if segmented else None


def _delta(now: dict, before: dict) -> dict:
    out = {}
    for key, value in now.items():
        if isinstance(value, dict):
            sub = _delta(value, before.get(key, {}))
            if sub:
                out[key] = sub
        elif isinstance(value, str):  # a state (the XLA decision): the latest one counts
            if value != before.get(key, ""):
                out[key] = value
        else:
            diff = value - before.get(key, 0)
            if diff:
                out[key] = diff
    return out


class _SpecState:
    """Counters of one specialization, kept here so they survive the Specialization."""

    __slots__ = ("sid", "runs", "time_graph", "failures", "snapshot", "xla", "plain",
                 "decision", "decision_written")

    def __init__(self):
        self.sid = None
        self.runs = 0
        self.time_graph = 0.0
        self.failures: dict = {}
        self.xla = ""  # the XLA decision (graphgen/xla.py), once made
        self.plain = ""  # graph or plain Python (graphgen/plain_trial.py), once decided
        self.decision = None  # ... as a later process takes it over (xla_trial.decision)
        self.decision_written = None
        self.snapshot = {"graph_runs": 0, "time_graph": 0.0, "guard_failures": {}, "xla": "",
                         "plain": ""}

    def current(self):
        return {"graph_runs": self.runs, "time_graph": self.time_graph,
                "guard_failures": dict(self.failures), "xla": self.xla, "plain": self.plain}


class _JitState:
    """What the recorder knows of one JitFunction (weakly: it does not keep it alive)."""

    def __init__(self, jit):
        self.ref = weakref.ref(jit)
        self.fn = jit.fn
        self.qualname = jit.__qualname__
        self.stats = jit.stats
        self.snapshot = {}
        self.identity = None
        self.active = False
        self.specs: list[_SpecState] = []
        self.pending = []          # (spec, profile, plan) generated, not yet written
        self.notes = collections.deque(maxlen=settings.max_failures_kept)
        self.last_reasons: dict = {}
        self.gave_up = None
        self.gave_up_written = None  # the reason last written: written once, not per flush
        self.counted_process = False
        self.split = None  # the last summary of its split at graph breaks written

    def stats_now(self):
        jit = self.ref()
        if jit is not None and jit.stats is not self.stats:  # jit.reset(): start over
            self.stats, self.snapshot = jit.stats, {}
        return _stats_snapshot(self.stats)


class Recorder:
    def __init__(self):
        self._lock = threading.Lock()         # guards the in-memory state below
        self._flush_lock = threading.RLock()  # one flush at a time
        self._states: dict[int, _JitState] = {}
        self._specs: dict[int, _SpecState] = {}   # id(Specialization) -> its counters
        self._dropped: list[_SpecState] = []  # of graphs janus dropped: forgotten once written
        self._thread = None
        self._wake = threading.Event()
        self._stopping = False
        self._installed = False
        self.last_flush = 0.0
        self.writes = 0          # specialization records written
        self.index_writes = 0    # function indexes updated (counter flushes)

    # -- lifecycle
    def install(self) -> None:
        if self._installed:
            return
        self._installed = True
        for name, callback in self._callbacks():  # (a fallback's reason: once is enough)
            events.subscribe(name, callback, repeats=name != "fallback")
        atexit.register(self.close)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def uninstall(self) -> None:
        for name, callback in self._callbacks():
            events.unsubscribe(name, callback)
        self._installed = False

    def _callbacks(self):
        return [("generated", self.on_generated), ("graph_run", self.on_graph_run),
                ("guard_failed", self.on_guard_failed),
                ("fallback", self.on_fallback), ("generation_failed", self.on_generation_failed),
                ("gave_up", self.on_gave_up), ("generalized", self.on_generalized),
                ("xla_decided", self.on_xla_decided), ("plain_decided", self.on_plain_decided),
                ("dropped", self.on_dropped)]

    def close(self) -> None:
        """Stop the writer thread and write everything (registered with atexit)."""
        self._stopping = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
        self.flush()

    def _after_fork(self) -> None:
        # The child starts with fresh locks and no writer; what the parent had not
        # written yet is the parent's to write (no double counting).
        warm.PROCESS = f"{os.getpid()}-{time.time():.6f}"
        self._lock = threading.Lock()
        self._flush_lock = threading.RLock()
        self._wake = threading.Event()
        self._thread = None
        forget_stores()
        if forks.forked_after_tensorflow:  # (its calls all run plainly: nothing of this
            self._stopping = True         # process's to record, no writer thread)
            self._states.clear()
            self._specs.clear()
            self._dropped = []
            return
        for state in self._states.values():
            state.pending = []
            state.snapshot = _stats_snapshot(state.stats)
            for spec_state in state.specs:
                spec_state.snapshot = spec_state.current()
            state.notes.clear()

    def store(self) -> CacheStore:
        return current_store()

    # -- event callbacks: in memory only
    def _state(self, jit) -> _JitState:
        state = self._states.get(id(jit))
        if state is None or state.ref() is not jit:
            with self._lock:
                state = self._states.get(id(jit))
                if state is not None and state.ref() is None:
                    self._states[id(state)] = state   # a dead function's id reused: keep
                    state = None                      # its last counters for the next flush
                if state is None or state.ref() is not jit:
                    state = self._states[id(jit)] = _JitState(jit)
        return state

    def _start(self) -> None:
        if self._thread is None and not self._stopping:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="janus-cache",
                                                    daemon=True)
                    self._thread.start()
        self._wake.set()

    def on_generated(self, jit, spec) -> None:
        if not settings.is_enabled() or spec.context or spec.distributed:
            return  # a graph traced under a tf.distribute strategy is not recorded
        state = self._state(jit)
        spec_state = _SpecState()
        with self._lock:
            state.active = True
            state.specs.append(spec_state)
            self._specs[id(spec)] = spec_state
            state.pending.append((spec, spec_state, jit.profile, spec.plan))
        self._start()

    def on_dropped(self, jit, spec) -> None:
        """A graph janus no longer keeps (at the limit): its counters are forgotten once
        written, so the recorder stays bounded as graphs come and go."""
        with self._lock:
            spec_state = self._specs.pop(id(spec), None)
            if spec_state is not None:
                self._dropped.append(spec_state)

    def on_graph_run(self, jit, spec, seconds) -> None:
        """The only hot-path callback: two additions in memory."""
        spec_state = self._specs.get(id(spec))
        if spec_state is not None:
            spec_state.runs += 1
            spec_state.time_graph += seconds

    def on_guard_failed(self, jit, spec, guard, actual) -> None:
        if not settings.is_enabled():
            return
        text = rec.normalize(guard.describe())
        spec_state = self._specs.get(id(spec))
        if spec_state is not None:
            spec_state.failures[text] = spec_state.failures.get(text, 0) + 1
        self._state(jit).notes.append({"time": time.time(), "event": "guard_failed",
                                       "spec": spec_state, "guard": text,
                                       "actual": str(actual)[:200]})

    def on_fallback(self, jit, category, reason) -> None:
        if not settings.is_enabled():
            return
        state = self._state(jit)
        value = getattr(category, "value", str(category))
        state.last_reasons[value] = str(reason)[:500]
        if value == "unsupported construct" and not state.active:
            state.active = True
            self._start()

    def on_generation_failed(self, jit, reason) -> None:
        warm.on_generation_failed(jit, reason)
        if settings.is_enabled():
            self._state(jit).notes.append({"time": time.time(), "event": "generation_failed",
                                           "reason": str(reason)[:500]})

    def on_gave_up(self, jit, reason) -> None:
        if not settings.is_enabled():
            return
        state = self._state(jit)
        state.gave_up = str(reason)[:500]
        state.active = True
        self._start()

    def on_xla_decided(self, jit, spec) -> None:
        spec_state = self._specs.get(id(spec))
        if spec_state is not None and settings.is_enabled():
            spec_state.xla = str(spec.xla)[:200]  # written with the next counter flush
            decision = xla_trial.decision(spec)  # (and into the warm state; the last made
            if decision is not None:             # stands while it is measured again)
                spec_state.decision = decision
            if spec.xla.startswith(("on", "off")):  # a decision, kept in the history too
                self._state(jit).notes.append({"time": time.time(), "event": "xla",
                                               "spec": spec_state, "reason": spec_state.xla})

    def on_plain_decided(self, jit, spec) -> None:
        spec_state = self._specs.get(id(spec))
        if spec_state is not None and settings.is_enabled():
            spec_state.plain = str(spec.plain)[:200]  # written with the next counter flush
            if spec.plain.startswith(("graph", "plain")):  # a decision, in the history too
                self._state(jit).notes.append({"time": time.time(), "event": "plain",
                                               "spec": spec_state, "reason": spec_state.plain})

    def on_generalized(self, jit, old_plan, new_plan) -> None:
        if settings.is_enabled():
            added = [line for line in new_plan.describe() if line not in old_plan.describe()]
            self._state(jit).notes.append({"time": time.time(), "event": "generalized",
                                           "reason": "; ".join(added)})

    # -- writing
    def _run(self) -> None:
        # Waits in short slices so that a changed flush_interval counts at once (a
        # wait begun under the old interval would otherwise flush on the old clock).
        while not self._stopping:
            woken = self._wake.wait(min(settings.flush_interval, 1.0))
            self._wake.clear()
            if self._stopping:
                break
            if woken or time.time() - self.last_flush >= settings.flush_interval:
                self.flush()

    def problem(self, message: str) -> None:
        """One warning per distinct problem; the program goes on."""
        warn_once(message)

    def flush(self) -> None:
        """Write pending records and counter deltas now (tests and atexit call this)."""
        if not settings.is_enabled() or forks.forked_after_tensorflow:
            return
        with self._flush_lock:
            try:
                self._flush()
            except CacheBusy as exc:
                self.problem(f"janus cache: not written this time: {exc}")
            except UnsafeEntry as exc:
                self.problem(f"janus cache: not using the cache directory: {exc}")
            except CorruptEntry as exc:  # (the key: records could not be sealed)
                self.problem(f"janus cache: not using the cache: {exc}")
            except OSError as exc:
                self.problem(f"janus cache: cannot write to {settings.resolved_directory()}: "
                             f"{exc.strerror or exc}")
            except Exception as exc:  # noqa: BLE001 - the cache never breaks a program
                self.problem(f"janus cache: recording failed: {type(exc).__name__}: {exc}")
            self.last_flush = time.time()

    def _flush(self) -> None:
        store = self.store()
        store.check_root()
        files.key()   # a process that cannot seal records writes nothing at all
        with self._lock:
            states = [s for s in self._states.values() if s.active]
        new_ids = set()
        for state in states:
            with self._lock:
                pending, state.pending = state.pending, []
            try:
                prepared = self._prepare(state, pending)   # the slow part, without the lock
                with store.lock():  # content files and their index entries: one step
                    new = self._write_specs(store, state, prepared)
                    self._merge_counters(store, state, new)
            except (CacheBusy, UnsafeEntry):
                with self._lock:
                    state.pending[:0] = pending   # try again at the next flush
                raise
            except OSError:
                raise
            except Exception as exc:  # noqa: BLE001 - one function's trouble, not everyone's
                self.problem(f"janus cache: could not record {state.qualname}: "
                             f"{type(exc).__name__}: {exc}")
                continue
            new_ids |= set(new)
        if new_ids:
            evicted = store.evict(settings.max_entries_per_function, settings.max_entries,
                                  keep=new_ids)
            if evicted:
                log.info("janus cache: evicted %d least used specialization(s)", len(evicted))
        # Forget functions that are gone and fully written, and dropped graphs' counters.
        with self._lock:
            for spec_state in list(self._dropped):
                if spec_state.current() == spec_state.snapshot and not any(
                        s is spec_state for state in self._states.values()
                        for _, s, _, _ in state.pending):
                    self._dropped.remove(spec_state)
                    for state in self._states.values():
                        state.specs[:] = [s for s in state.specs if s is not spec_state]
            for key, state in list(self._states.items()):
                if state.ref() is None and not state.pending and not state.notes and \
                        all(s.current() == s.snapshot for s in state.specs):
                    del self._states[key]
                    for spec_key, spec_state in list(self._specs.items()):
                        if spec_state in state.specs:
                            del self._specs[spec_key]

    def _identity(self, state: _JitState, converted=None):
        if state.identity is None:
            if converted is None:
                try:
                    converted = convert(state.fn)
                except Exception:  # noqa: BLE001
                    converted = None
            jit = state.ref()
            state.identity = rec.identify(jit if jit is not None else state.fn, converted)
        return state.identity

    def _prepare(self, state: _JitState, pending) -> list:
        """(spec, its state, record, graph text, warm-start state or None) per pending one."""
        prepared = []
        for spec, spec_state, profile, plan in pending:
            jit = state.ref()
            record, text = rec.build_spec_record(jit if jit is not None else state.fn, spec)
            self._identity(state, spec.converted)
            warm_state = None
            # a graph loaded from the cache taught nothing new: its state stays as it was
            # (rewriting it would also make it this process's own: see warm.decode_graphs)
            if settings.warm_start_enabled() and profile is not None and spec.portable is None:
                warm_state = self._warm_state(jit, spec, profile, plan, record["id"])
            prepared.append((spec, spec_state, record, text, warm_state))
        return prepared

    @staticmethod
    def _warm_state(jit, spec, profile, plan, sid: str):
        """(state, graph entry or None, keep_origin) to merge into the warm state, or None."""
        state = warm.encode_state(profile, plan, spec.inputs)
        if state is None:
            return None
        graph, entry = portable.export(spec), None
        if graph is not None:
            try:
                entry = warm.graph_entry(sid, spec.plan, graph)
            except TypeError:
                entry = None
        state["spec"] = sid
        state["process"] = warm.PROCESS
        return state, entry, jit is not None and warm.is_warm(jit)

    def _write_specs(self, store: CacheStore, state: _JitState, prepared) -> dict:
        new = {}
        for spec, spec_state, record, text, warm_state in prepared:
            if store.write_spec(record, text):
                self.writes += 1
            spec_state.sid = record["id"]
            counters = new.setdefault(record["id"], {"generations": 0, "generation_time": 0.0})
            if spec.portable is None:  # (a graph loaded from the cache is no generation)
                counters["generations"] += 1
                counters["generation_time"] += float(spec.generation_time)
            counters["summary"] = {"source_hash": record["function"]["source_hash"],
                                   "versions": record["versions"],
                                   "guards": len(record["guards"]),
                                   "in_graph_guards": len(record["in_graph_guards"]),
                                   "ops": sum(record["op_histogram"].values()),
                                   "plan": record["plan"]}
            if warm_state is not None:
                new_state, entry, keep_origin = warm_state
                store.update_warm(state.identity.key,
                                  warm.state_key(state.identity, record["versions"]),
                                  lambda old: warm.merge_state(old, new_state, entry, keep_origin))
        return new

    def _merge_counters(self, store: CacheStore, state: _JitState, new: dict) -> None:
        now = state.stats_now()
        delta = _delta(now, state.snapshot)
        spec_deltas = {}
        for spec_state in state.specs:
            current = spec_state.current()
            if spec_state.sid is None:
                continue
            d = _delta(current, spec_state.snapshot)
            if d:
                spec_deltas.setdefault(spec_state.sid, []).append((spec_state, current, d))
        notes = []
        while state.notes:   # popleft is atomic: a note added meanwhile is not lost
            try:
                notes.append(state.notes.popleft())
            except IndexError:
                break
        reasons = dict(state.last_reasons)
        split = _split_summary(state)
        if split == state.split:
            split = None
        # (a split changes only with calls, which change the counters: not a reason alone)
        gave_up = state.gave_up
        if not (delta or spec_deltas or new or notes or gave_up != state.gave_up_written or
                not state.counted_process):
            return
        identity = self._identity(state)
        now_time = time.time()

        def mutate(index):
            index["function"] = identity.as_dict()
            index["versions"] = rec.versions()
            counters = index.setdefault("counters", {})
            add_counters(counters, delta)
            if not state.counted_process:
                index["processes"] = index.get("processes", 0) + 1
            specs = index.setdefault("specializations", {})
            for sid, c in new.items():
                if not store.has_spec(identity.key, sid):
                    continue  # not on disk (cannot happen under the lock; never name it)
                entry = specs.setdefault(sid, empty_spec_counters())
                entry["generations"] += c["generations"]
                entry["generation_time"] += c["generation_time"]
                entry.update(c["summary"])
            for sid, items in spec_deltas.items():
                if sid not in specs:
                    continue  # evicted meanwhile
                entry = specs[sid]
                for _, _, d in items:
                    add_counters(entry, d)
                if any(d.get("graph_runs") for _, _, d in items):
                    entry["last_used"] = now_time
            for note in notes:
                if "spec" in note:
                    note = dict(note, spec=getattr(note["spec"], "sid", None))
                index.setdefault("failures" if note["event"] == "guard_failed" else "events",
                                 []).append(note)
            keep = settings.max_failures_kept
            index["failures"] = index.get("failures", [])[-keep:]
            index["events"] = index.get("events", [])[-keep:]
            if reasons:
                index.setdefault("last_fallback_reasons", {}).update(reasons)
            if gave_up:
                index["gave_up"] = gave_up
            if split:
                index["segments"] = split

        store.update_index(identity.key, mutate)
        self._write_xla_decisions(store, state, identity)
        state.split = split or state.split
        self.index_writes += 1
        state.counted_process = True
        state.gave_up_written = gave_up
        state.snapshot = now
        for items in spec_deltas.values():
            for spec_state, current, _ in items:
                spec_state.snapshot = current

    @staticmethod
    def _write_xla_decisions(store: CacheStore, state: _JitState, identity) -> None:
        """XLA decisions made since the last flush, into the function's warm state (a later
        process takes them over instead of compiling and measuring again)."""
        if not settings.warm_start_enabled():
            return
        key = warm.state_key(identity, rec.versions())
        for spec_state in state.specs:
            decision = spec_state.decision
            if spec_state.sid is None or decision is None or \
                    decision == spec_state.decision_written:
                continue
            store.update_warm(identity.key, key,
                              lambda old: warm.with_xla(old, spec_state.sid, decision))
            spec_state.decision_written = decision

    # -- introspection
    def sids_of(self, jit) -> list[str]:
        state = self._states.get(id(jit))
        if state is not None and state.ref() is not jit:
            return []
        return [s.sid for s in state.specs if s.sid] if state else []


recorder = Recorder()
