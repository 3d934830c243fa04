"""`janus.jit`: profile, specialize, guard, run as a graph, fall back.

A `JitFunction` wraps one user function. Its first `profile_calls` calls run the
instrumented copy imperatively (recording the profile). Later calls look for a
specialization whose host-side guards hold and run its graph; when none does,
janus generates one (generalizing the plan where the same assumption keeps
failing), or runs the call eagerly when it cannot. A failing in-graph guard
aborts the graph before any variable or heap change and the call reruns eagerly. A small
specialization whose graph measured slower than the function run plainly runs the calls
it fits plainly (graphgen/plain_trial.py; the first thing `__call__` checks after a
function janus runs plainly for good: fallback/settled.py).

Threads: a per-function lock protects janus's bookkeeping only (which path a call
takes, counters, the list of specializations). User code never runs under it: not the
graph, not the plain call, not profiling or tracing, any of which may wait on another
thread (tf.distribute replicas meet in `merge_call`). One thread at a time profiles or
generates (it holds the function's "busy" slot); a call that would need the slot while
another thread has it runs plainly instead of waiting.

Errors of janus's own machinery never reach the user: see janus/fallback/safety.py.
"""
from __future__ import annotations

import collections
import functools
import threading
import time
import types

import tensorflow as tf
from tensorflow.python.eager import record

from janus import cache, events, forks, introspect, notes, numpy_modes, raised_frames, \
    user_attributes
from janus.config import CHANGES as _CONFIG_CHANGES, Config, config as global_config
from janus.errors import (ConversionError, EagerRun as _Eager, FallbackCategory,
                          JanusFallbackError, JanusInternalError, detached)
from janus.events import CHANGES as _EVENT_CHANGES
from janus.fallback import agreement, heap, mixed, safety, segmented
from janus.eager_runs import EagerRuns
from janus.churn_bound import Churn
from janus.generation import QUIET_AFTER_RAISE, Generation, RaisedInTrace, call_key
from janus.graphgen.plan import Plan
from janus.graphgen import calls, distribute, plain_trial, xla_trial
from janus.graphgen.specialize import Specialization
from janus.profiler import Profile, profile_call
from janus.recursion import limits
from janus.recursion.table import NoCase
from janus.stats import Stats
from janus.transform import convert, user_logging, user_warnings

cache.start_recording()  # (the recorder hears every jitted function's events; cache/__init__.py)
user_warnings.install()  # (a warning's `stacklevel` counted in the user's frames, F406)
user_logging.install()  # (a logging record's caller: the user's frame, F445)


class JanusWarning(UserWarning):
    """janus gave up on something: it says so once per function."""


_TAPE_INEXACT = _Eager(FallbackCategory.UNSUPPORTED, "a gradient tape records the call, and "
                       "the graph's gradient would not be Python's: zeros where Python's tape "
                       "gives None (an input read only in some branch, or in a loop's body, "
                       "an item of a list the graph may not read, outputs reading different "
                       "watched inputs), or an op without a gradient on a path the caller "
                       "may not differentiate (graphgen/caller_tape.py)")
_FORKED = _Eager(FallbackCategory.UNSUPPORTED, forks.REASON, "plain")
_DISAGREED = _Eager(FallbackCategory.GUARD_FAILURE, "the workers of a multi-worker strategy "
                    "decided differently (a host guard or generation differed): every worker "
                    "runs this call plainly", "plain")


class JitFunction(EagerRuns, Generation):
    """One jitted user function: its profile, its specializations, its counters.

    Use `janus.jit(fn)`; as a method decorator it binds like a function
    (`BoundJitFunction`).
    """

    def __init__(self, fn, **options):
        self.__janus_function__ = fn
        self.fn = fn
        if isinstance(fn, types.FunctionType):
            functools.update_wrapper(self, fn)
        else:  # (a callable without source: its name; its attributes stay its own)
            functools.update_wrapper(self, fn, updated=())
            self.__name__ = user_attributes.get(fn, "__name__", None) or type(fn).__name__
            self.__qualname__ = user_attributes.get(fn, "__qualname__", None) or self.__name__
        global_config.replace(**options)  # validates option names
        self.options = options
        self._config = None  # (Config.version(), global config with `options` applied)
        self.stats = Stats()
        self._lock = threading.RLock()
        self.generation_gate = None  # () -> why not to generate now, or "" (a segment's)
        self._reset_state()

    def _reset_state(self):
        cfg = self.config
        self.profile = Profile(cfg.max_profile_values)
        self.specializations: list[Specialization] = []
        self.plan: Plan | None = None
        self.plan_seed = Plan()  # what is known general before profiling (segments' inputs)
        self.blocked_plans: set = set()
        self.refused_branches: set = set()  # tests whose general graph failed (generation.py)
        self.refused_untouched: set = set()  # lists the ladder's untouched rung may not
        # take: its plan's generation failed (guard_failures.py, F367)
        self.untouched_fallbacks: dict = {}  # plan that rung made -> (its lists, the plan
        # without it), followed should that plan's generation fail
        self.generalizing = True  # False: the plan stays (too many failed: generation.py)
        self.raised_traces = 0  # traces that raised the call's own exception (generation.py)
        self.raised_streak = 0  # ... in a row, plain Python raising it too (generation.py)
        self.raise_quiet = None  # [calls left, ...]: calls that would trace run plainly
        # meanwhile (generation.py RAISED_SHARE)
        self.builds = 0  # traces that met a Keras object building its variables (generation.py)
        self.inconclusive = 0  # traces in a row another thread disturbed (generation.py)
        self.retrace_after = 0  # ... calls up to this count that would trace run plainly
        self.reprofiled: set = set()  # tests a trace reached and no profiled call did
        # (each once: the call ran profiled; a second time is a failed generation)
        # the calls that traced a graph for a new outcome of a test kept per outcome: one
        # count for all, or per test for a test on fed numbers (janus/outcomes.py)
        self.blocked_regenerations: dict = {}
        self.parked: list[Specialization] = []  # other outcomes' graphs (generation.py)
        self._mixed_runner = None  # the converted code run mixed (made at first need)
        self._unchecked = 0  # calls to run plainly at once (graphgen/plain_trial.py)
        self._unchecked_spec: Specialization | None = None  # (the decision they fit)
        self._settled = None  # (epoch, reason, split): plainly for good (fallback/settled.py)
        self._last_fallback = None  # (category, reason, events version) last announced
        self.failure_counts: collections.Counter = collections.Counter()
        self.failures: collections.deque = collections.deque(maxlen=64)
        self.internal_errors: collections.deque = collections.deque(maxlen=16)
        self.unsupported: ConversionError | None = None
        self.last_decision = "not called yet"
        self._warned: set = set()
        self._next_id = 0
        self._expected_inputs: list = []
        self.plan_history: list[Plan] = []
        self.last_failure_reason = ""
        self.general_failure = ""  # why the last generalized plan could not be built
        self._warm_graphs: list = []  # set by a warm start: other processes' recorded graphs
        self._xla_recorded: dict = {}  # ... and their XLA decisions, by record id
        self.segmented = None  # the function split at its graph breaks (fallback/segmented.py)
        self.last_trace_error: Exception | None = None
        self._busy = False  # a thread is profiling or generating (see the module docstring)
        self._limit_quiet = 0  # calls at the specialization limit run at once (generation.py)
        self._limit_misses = 0
        self._churn = Churn()  # (generation.py `_dispatch`: graphs made and dropped)
        self._numpy_settings = None  # TF numpy settings the profile met (numpy_modes.py)
        self._weak_quick = None  # (epoch, reason): TF's weak dtypes' quick path (same)
        self._limit_skip = None  # [config epoch, events epoch, calls left, reason, calls
        # left below which a call that returns ends it, calls it applies to (`call_key`,
        # None: all)]: calls run plainly at once (generation.py)

    _own_frames = 0  # its function's frames plain Python has not (a segment's: 1; limits.py)

    # the function's defaults, read and rebound as on it (graphs guard them: F273)
    __defaults__ = property(lambda self: self.fn.__defaults__,
                            lambda self, value: setattr(self.fn, "__defaults__", value))
    __kwdefaults__ = property(lambda self: self.fn.__kwdefaults__,
                              lambda self, value: setattr(self.fn, "__kwdefaults__", value))

    @property
    def config(self) -> Config:
        """The process-wide config with this function's options applied (read per call,
        so changes to `janus.config` take effect at once)."""
        if not self.options:
            return global_config
        cached = self._config
        if cached is None or cached[0] != Config.version():
            cached = self._config = (Config.version(), global_config.replace(**self.options))
        return cached[1]

    def reset(self) -> None:
        """Forget profiles, graphs and counters."""
        with self._lock:
            self.stats = Stats()
            self._reset_state()

    def run_unchecked(self, spec: Specialization, calls: int) -> None:
        """Run the next `calls` calls plainly without janus's checks: `spec`, decided
        plain, fits this one (graphgen/plain_trial.py)."""
        self._unchecked_spec, self._unchecked = spec, calls

    def discard_graphs(self) -> None:
        """Free the graphs, profile and plan of a function that will not run as a graph
        again (a segment decided to run eagerly); its counters and failures stay for
        `explain`."""
        with self._lock:
            self.specializations = []
            self.profile = Profile(self.config.max_profile_values)
            self.plan = None
            self.plan_history = []
            self._warm_graphs = []
            self._mixed_runner = None
            self._unchecked = 0

    # -- binding as a method
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return BoundJitFunction(self, obj)

    # -- the call
    def __call__(self, *args, **kwargs):
        try:  # (an exception leaving janus: its janus frames' locals go, F441)
            done = self._settled  # (plainly for good, while config and subscribers stay)
            if done is not None and done[0] == _CONFIG_CHANGES[0] and \
                    done[1] == _EVENT_CHANGES[0]:
                stats = self.stats  # (threads may race on these: counts, never a result)
                stats.calls += 1
                stats.fallback_calls += 1
                stats.fallback_reasons[done[2]] += 1
                stats.segmented_calls += done[3]
                return limits.entry_call(self.fn, args, kwargs, self._own_frames)
            quick = self._weak_quick  # (TF's weak dtypes on: plainly, as _eager ran one before)
            if quick is not None and quick[0] == _CONFIG_CHANGES[0] and \
                    quick[1] == _EVENT_CHANGES[0] and numpy_modes.weak_promotion():
                stats = self.stats  # (threads may race on these: counts, never a result)
                stats.calls += 1
                stats.fallback_calls += 1
                stats.fallback_reasons[quick[2]] += 1
                return limits.entry_call(self.fn, args, kwargs, self._own_frames)
            if self._unchecked > 0:  # a plain decision's calls after a checked one (plain_trial)
                self._unchecked -= 1  # (threads may race on these: a count, never a result)
                stats = self.stats
                stats.calls += 1
                stats.plain_calls += 1
                self._unchecked_spec.plain_calls += 1
                return limits.entry_call(self.fn, args, kwargs, self._own_frames)
            skip = self._limit_skip  # (at the specialization limit, graphs missed; traces
            if skip is not None and skip[2] > 0 and skip[0] == _CONFIG_CHANGES[0] and \
                    skip[1] == _EVENT_CHANGES[0] and \
                    (skip[5] is None or call_key(args, kwargs) in skip[5]):
                # (raised the call's own error: generation.py RAISED_SHARE; calls like it)
                skip[2] -= 1  # (threads may race on these: counts, never a result)
                stats = self.stats
                stats.calls += 1
                stats.fallback_calls += 1
                stats.fallback_reasons[skip[3]] += 1
                value = limits.entry_call(self.fn, args, kwargs, self._own_frames)
                if skip[2] <= skip[4]:  # (a call that returned where traces raised: the
                    skip[2] = 0         # next one decides again)
                return value
            try:  # the most recently used specialization, decided plain: the fast path
                first = self.specializations[0]
            except IndexError:
                first = None
            cfg = self.config
            if first is not None and first.runs_plain and cfg.plain_trial and not cfg.disabled \
                    and first.guards.check(args, kwargs) < 0:  # (plain_trial.run, inline)
                start = time.perf_counter()
                try:
                    value = limits.entry_call(self.fn, args, kwargs, self._own_frames)
                except BaseException:
                    plain_trial.ran(self, first, time.perf_counter() - start, False, True)
                    raise
                plain_trial.ran(self, first, time.perf_counter() - start, False, False)
                return value
            if cfg.disabled or tf.inside_function():
                return limits.entry_call(self.fn, args, kwargs, self._own_frames)
            if forks.forked_after_tensorflow:  # (no graph runs there, nor traces: F374)
                with self._lock:
                    self.stats.calls += 1
                return self._eager(args, kwargs, _FORKED)
            if numpy_modes.weak_promotion():  # (TF's weak dtypes: no graph reproduces them)
                with self._lock:
                    self.stats.calls += 1
                try:
                    return self._eager(args, kwargs, numpy_modes.WEAK_PROMOTION)
                finally:  # (the next such call takes the quick path above)
                    self._weak_quick = numpy_modes.quick_epoch(self)
            try:
                with self._lock:
                    self.stats.calls += 1
                    step = self._decide(args, kwargs, cfg)
            except (JanusFallbackError, JanusInternalError):
                raise
            except Exception as exc:  # noqa: BLE001 - nothing ran yet: run plainly
                step = self.report_internal("deciding how to run the call", exc)
            strategy = self.profile.collective_strategy
            if strategy is not None and distribute.in_replica_context():
                strategy = None  # a replica step always runs plainly: nothing to agree on
            if strategy is not None and not self._agreed(strategy, step):
                return self._eager(args, kwargs, _DISAGREED)
            if step is QUIET_AFTER_RAISE:
                return self._quietly(args, kwargs, step)
            if isinstance(step, _Eager):
                return self._eager(args, kwargs, step)
            if step == "profile":
                return self._profile(args, kwargs)
            if step == "generate":
                step = self._generate_unlocked(args, kwargs, cfg)
                if strategy is not None and not self._agreed(strategy, step, generated=True):
                    return self._eager(args, kwargs, _DISAGREED)
                if isinstance(step, RaisedInTrace):
                    return self._raised_in_trace(step, args, kwargs, cfg)
                if isinstance(step, _Eager):
                    return self._eager(args, kwargs, step)
            return self._run_graph(step, args, kwargs, cfg)
        except BaseException as exc:
            raised_frames.release(exc)
            raise

    def _agreed(self, strategy, step, generated: bool = False) -> bool:
        """Whether every worker of `strategy` takes this call's path (see
        janus/fallback/agreement.py): all run the same specialization, or all generate,
        or none runs a graph. On a disagreement a claimed profiling/generation slot is
        released and the call runs plainly on every worker."""
        if isinstance(step, Specialization):
            proposal = step.id
        else:
            proposal = -2 if step == "generate" else -1  # profiling runs eagerly too
        try:
            same = agreement.all_propose(strategy, proposal)
        except Exception:
            if step in ("profile", "generate") and not generated:
                self._release()
            raise
        if not same:
            if step in ("profile", "generate") and not generated:
                self._release()
            with self._lock:
                self._count(self.stats.guard_failures, "workers decided differently")
        return same

    def _unsupported(self) -> _Eager:
        if isinstance(self.unsupported, safety.InternalReason):
            return _Eager(FallbackCategory.INTERNAL, self.unsupported.describe())
        return _Eager(FallbackCategory.UNSUPPORTED, self.unsupported.describe(), "mixed")

    def _decide(self, args, kwargs, cfg: Config):
        """Under the lock: "profile", "generate", a Specialization to run, or _Eager."""
        context = distribute.context_key()  # (one query per call: see distribute.py)
        if context and not context[1]:  # in a replica context: see graphgen/distribute.py
            return _Eager(FallbackCategory.UNSUPPORTED, "called in a tf.distribute replica "
                          "context (replica steps run as plain Python)", "plain")
        modes = numpy_modes.settings()
        if modes != self._numpy_settings:
            if self._busy:  # (its profile or trace is of the settings before)
                return _Eager(FallbackCategory.BUSY, "another thread is profiling or "
                              "generating under TF's numpy settings before")
            self._numpy_settings_changed(modes)
        if self.unsupported is not None:
            return self._unsupported()
        if self.profile.calls == 0 and not self._busy:
            if cfg.segments and self.stats.calls == 1:
                breaks = segmented.static_breaks_of(self.fn, args, kwargs)
                if breaks:  # known breaks: no whole-function graph to profile for
                    self.unsupported = safety.Reason(breaks)
                    return self._unsupported()
            self._warm_start()  # a later process: restore profile + plan, skip profiling
        if self.profile.calls < cfg.profile_calls:
            if self._busy:
                return _Eager(FallbackCategory.BUSY, "another thread is profiling")
            if self._converted() is None:
                return self._unsupported()
            self._busy = True
            return "profile"
        return self._dispatch(args, kwargs, cfg, context)

    def _numpy_settings_changed(self, modes: tuple) -> None:
        """TF's numpy-behavior settings differ from those the profile and graphs were
        made under (janus/numpy_modes.py): start over, keeping the counters and what
        does not depend on them (an unsupported construct, the split at graph breaks);
        no thread is profiling or generating."""
        if self._numpy_settings is not None:
            kept = (self.stats, self.unsupported, self.segmented)
            self._reset_state()
            self.stats, self.unsupported, self.segmented = kept
        self._numpy_settings = modes

    def _warm_start(self):
        if getattr(self, "segment_of", None) is not None:
            return  # a segment: split anew in each process
        try:
            cache.warm_start(self)
        except Exception as exc:  # noqa: BLE001 - start cold instead
            self.report_internal("warm-starting from the cache", exc, give_up=False)

    def _env(self, args, kwargs):
        return (args, kwargs, self.fn.__globals__, self.fn.__closure__ or ())

    def _converted(self):
        """The converted function, or None (then `self.unsupported` says why)."""
        try:
            return convert(self.fn)
        except ConversionError as exc:
            self.unsupported = detached(exc)  # (kept: no frames, F397)
            self.last_failure_reason = self.last_failure_reason or exc.describe()
        except Exception as exc:  # noqa: BLE001 - a conversion bug: the function runs plainly
            self.report_internal("converting the function", exc)
        return None

    def _release(self):
        with self._lock:
            self._busy = False

    def _profile(self, args, kwargs):
        start = time.perf_counter()
        self.last_decision = "profiled (runs imperatively while janus records)"
        try:
            converted = convert(self.fn)  # converted successfully under the lock just now
            return safety.run_watched(self, "profiling", lambda: profile_call(
                converted, self.profile, args, kwargs, safety.WatchedProfileRuntime), args, kwargs)
        finally:
            with self._lock:
                self._busy = False
                self.stats.profile_calls += 1
                self.stats.time_profiling += time.perf_counter() - start
                self._check_profile_bounds()
                events.emit("profiled", self, self.profile)

    # -- running a graph
    def _run_graph(self, spec: Specialization, args, kwargs, cfg: Config):
        taped = record.could_possibly_record()
        if taped and not spec.tape_view().exact:
            return self._eager(args, kwargs, _TAPE_INEXACT)
        with self._lock:
            trial = spec.trial
            runner = trial.runner(spec) if trial is not None else spec
            plain = spec.plain_trial
            plain = cfg.plain_trial and (spec.runs_plain or plain is not None and
                                         plain.plain_turn())
        if plain:
            return plain_trial.run(self, spec, args, kwargs)
        fed = time.perf_counter()
        env = self._env(args, kwargs)
        try:
            inputs = runner.feed(args, kwargs)
        except NoCase as exc:
            return self._new_structure(spec, exc, args, kwargs)
        except Exception as exc:  # noqa: BLE001 - nothing ran yet
            return self._eager(args, kwargs, self.report_internal("feeding the graph", exc))
        if taped and spec.tape_view().inexact(inputs):
            return self._eager(args, kwargs, _TAPE_INEXACT)
        start = time.perf_counter()
        calls.note_graph_run()
        with safety.interrupts_held():  # Ctrl-C: all of the call's effects or none
            saved = spec.saved_states() if spec.random_states else None
            try:
                if taped:  # (as a caller's tape sees a plain call: graphgen/caller_tape.py)
                    results = spec.tape_view().call(
                        runner.call, inputs, runner.captured_call() if runner is spec else None)
                else:
                    results = runner.call(inputs)
            except Exception as exc:  # noqa: BLE001 - handled below, outside the hold
                failure = exc
                if saved:
                    spec.restore_states(saved)
            else:
                failure = None
                elapsed = time.perf_counter() - start
                value = self._write_back(runner, results, env)
                total = time.perf_counter() - fed  # (fed and written back: the plain trial)
        if failure is not None:
            try:
                return self._call_failed(spec, runner, trial, failure, args, kwargs, cfg)
            finally:
                failure = None  # (its traceback holds this frame: a cycle, F441)
        with self._lock:
            build_xla, recorded = self._after_graph_call(spec, runner, trial, elapsed, total,
                                                         cfg)
        if build_xla:
            self._start_xla(spec, inputs, recorded)
        return value

    def _write_back(self, runner, results, env):
        """The graph committed its variable updates: the heap follows, in program order."""
        try:
            if not isinstance(results, (list, tuple)):
                results = [results]
            return heap.write_back(runner.effects, runner.result, results, env)
        except Exception as exc:  # noqa: BLE001 - cannot rerun: variables already changed
            self.report_internal("writing the graph's results back", exc, always_raise=True)

    def _call_failed(self, spec, runner, trial, exc, args, kwargs, cfg):
        if (runner is not spec or spec.accelerated is not None) and isinstance(exc, Exception):
            with self._lock:  # the XLA variant failed (before writing anything): plain graph
                xla_trial.failed(spec, exc)
                events.emit("xla_decided", self, spec)
            return self._run_graph(spec, args, kwargs, cfg)
        if isinstance(exc, tf.errors.OpError):
            return self._graph_failed(spec, exc, args, kwargs, cfg)
        if spec.portable is not None and not spec.calls:
            # a graph recorded by another process that does not run here: drop it, go on
            with self._lock:
                if spec in self.specializations:
                    self.specializations.remove(spec)
            return self._eager(args, kwargs, _Eager(
                FallbackCategory.UNSUPPORTED,
                f"the recorded graph does not run here ({type(exc).__name__})"))
        return self._eager(args, kwargs, self.report_internal("calling the graph", exc))

    def _count(self, counter, key):
        if not self.stats.count(counter, key, self.config.max_reasons):
            self._warn_once("reasons", f"{self.__qualname__}: more than "
                            f"{self.config.max_reasons} distinct guard-failure/fallback "
                            "reasons; later ones are counted as '(other)' "
                            "(janus.config.max_reasons)")

    # -- janus's own errors
    def report_internal(self, phase: str, exc: BaseException, give_up: bool = True,
                  always_raise: bool = False, note: str = "") -> _Eager:
        """Record an error of janus's own machinery (see janus/fallback/safety.py) and
        say how the call runs instead; raise JanusInternalError where the switch (or
        `always_raise`) says so."""
        reason = f"janus internal error while {phase}: {safety.describe(exc)}" + \
            (f" ({note})" if note else "")
        with self._lock:
            self.stats.internal_errors += 1
            self.internal_errors.append(reason)
            if give_up and not isinstance(self.unsupported, safety.InternalReason):
                self.unsupported = safety.InternalReason(reason + "; this function runs plainly")
        events.emit("internal_error", self, phase, reason)
        if give_up:
            events.emit("gave_up", self, reason)
        self._warn_once("internal", f"{self.__qualname__}: {reason}; the call ran plainly. "
                        "Please report this janus bug.")
        if always_raise or self.config.raise_internal_errors:
            raise safety.internal_error(f"{self.__qualname__}: {phase}", exc)
        return _Eager(FallbackCategory.INTERNAL, reason)

    def _check_profile_bounds(self):
        profile = self.profile
        limit = profile.max_values
        full = len(profile.signatures) >= limit or len(profile.attributes) >= 64 * limit or \
            any(len(c) >= 4 * limit for c in profile.cases.values())
        if full:
            self._warn_once("profile", f"{self.__qualname__}: the profile keeps at most {limit} "
                            "distinct values per site (janus.config.max_profile_values); "
                            "later ones are not recorded")

    def _warn_once(self, key: str, message: str):
        if key not in self._warned:
            self._warned.add(key)
            notes.note(message, JanusWarning, safety.user_stacklevel())

    # -- introspection
    def explain(self, *args, **kwargs) -> str:
        """What janus would do for a call with these arguments, and why."""
        try:
            with self._lock:
                return introspect.explain(self, args, kwargs)
        except Exception as exc:  # noqa: BLE001
            if self.config.raise_internal_errors:
                raise safety.internal_error("explain", exc)
            return f"janus: {self.__qualname__}\n  (explain failed: {safety.describe(exc)})"

    def deciding(self) -> list[str]:
        """What janus still decides for this function (introspect.deciding)."""
        try:
            return introspect.deciding(self)
        except Exception as exc:  # noqa: BLE001 - janus's: say so, as a decision
            return [f"(unknown: {safety.describe(exc)})"]


class BoundJitFunction:
    """A jitted function bound to an instance (`model.step`)."""

    def __init__(self, jit: JitFunction, obj):
        self.__self__ = obj
        self.__janus_function__ = jit.fn
        self.jit = jit

    def __call__(self, *args, **kwargs):
        return self.jit(self.__self__, *args, **kwargs)

    def explain(self, *args, **kwargs) -> str:
        return self.jit.explain(self.__self__, *args, **kwargs)

    @property
    def stats(self) -> Stats:
        return self.jit.stats


mixed.make_jit = JitFunction  # the mixed runtime jits callees (no import cycle)
segmented.make_jit = JitFunction  # segments are jitted functions of their own
