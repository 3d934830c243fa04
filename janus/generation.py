"""How a `JitFunction` makes graphs: choosing the specialization a call fits (or
deciding to trace one), tracing it (or loading a recorded one), counting failed
generations (retreating from a generalization, or giving up), making room at the
specialization limit, and handing a specialization to the XLA compiler. What a failed
guard or graph teaches (the generalization ladder) is janus/guard_failures.py; the
graphs kept per outcome of a tensor test, janus/outcomes.py.

A mixin of `janus.function.JitFunction`; it uses that class's state (profile, plan,
specializations, lock, stats) and its helpers (`report_internal`, `_count`, `_warn_once`,
`_env`, `_converted`, `_unsupported`).
"""
from __future__ import annotations

import time

from tensorflow.python.framework.ops import EagerTensor as EAGER_TENSOR

from janus import cache, events
from janus.cache import portable, record
from janus.config import Config
from janus.errors import BuildsOnFirstCall, ConversionError, EagerRun as _Eager, \
    InconclusiveTrace, \
    FallbackCategory, Unprofiled, detached
from janus.fallback import safety
from janus.fallback.settled import epoch as settled_epoch
from janus.graphgen import distribute, formatted_text, plain_trial, stand_in_calls, xla, \
    xla_trial
from janus.graphgen.plan import Plan, plan_from_profile
from janus.graphgen.specialize import Specialization, generate
from janus.graphgen.values import FedScalarMisuse, GraphValueInPython
from janus.guard_failures import GuardFailures
from janus.inconclusive_tries import RETRACE_WAITS, InconclusiveTries, ThreadWait
from janus.outcomes import Outcomes, same_outcome
from janus.recursion import limits
from janus.recursion.self_calls import UnlearnedRecursion
from janus.transform import convert

_AT_LIMIT = _Eager(FallbackCategory.LIMIT, "specialization limit reached")
_CHURNED = _Eager(FallbackCategory.LIMIT, "graphs generated are not reused")
LIMIT_QUIET = 15
"""Calls no graph fits, at the specialization limit, that run eagerly at once (their
guards checked, nothing learned from the miss) after one that learned (it may
generalize the plan, which frees room): janus's learning cost 3-4x a small function. A
churning function learns from no miss while it waits (`_churned`: F379)."""
LIMIT_SKIP = 60
"""After `LIMIT_QUIET` such calls in a row, none fitting a graph: calls that run plainly
without even the guards' checks (a call that would have fit one runs plainly: right,
only not faster), then the guards are checked again."""


def _graph_value_in_python(exc: Exception) -> bool:
    """A value only the graph's run knows needed as Python: a loop's grown list
    (GraphValueInPython), a tensor's value as a Python number (`round(float(t), 4)`)."""
    return isinstance(exc, GraphValueInPython) or \
        isinstance(exc, FedScalarMisuse) and exc.from_graph


class RaisedInTrace(_Eager):
    """A trace that raised the user's own kind of exception (a `raise` on this call's
    values, a library refusing them): the call runs plainly, and the generation counts as
    failed only if plain Python does not raise it too (`Generation.after_raised`), so a
    function whose calls now and then raise is not given up on."""

    def __init__(self, error: Exception, trace_time: float = 0.0):
        super().__init__(FallbackCategory.UNSUPPORTED, f"the trace raised "
                         f"{type(error).__name__}: {safety.error_text(error)[:200]}",
                         "plain")
        self.error = error
        self.trace_time = trace_time


MAX_BUILDS = 4
"""Traces that met a Keras object building its variables (the call runs plainly and
builds it; the next call traces again) before such a trace counts as failed."""

MAX_REPROFILES = 4
"""Traces that reached a tensor test no profiled call reached (the call runs profiled,
errors.Unprofiled) before such a trace counts as failed."""

MAX_RAISED_TRACES = 16
"""Traces that raised the call's own exception, plain Python's rerun not yet seen, before
they count as failed generations (one plain Python raised too is not counted)."""

RAISED_SHARE = 0.05
"""After a trace raised the call's own exception and plain Python did too (F275: a summary
op without TensorBoard, an optimizer's `Unknown variable`: every call traced again, 40 ms
each), later calls like it (`call_key`) that would trace run plainly for a while: at
least as many as make the trace cost this share of their plain time, twice as many after
each such trace in a row. A call that returns ends the while (something changed: the
next one traces) once the first 2**(n-1) of it ran, for the n-th such trace in a row."""


class QuietAfterRaise(_Eager):
    """A call that would trace, run plainly: the last traces of calls like it raised the
    call's own exception, as plain Python did (`RAISED_SHARE`)."""

    def __init__(self):
        super().__init__(FallbackCategory.UNSUPPORTED, "the last traces raised the call's "
                         "own exception, as plain Python did: calls like it run plainly "
                         "for a while", "plain")


QUIET_AFTER_RAISE = QuietAfterRaise()


def call_key(args: tuple, kwargs: dict) -> tuple:
    """What tells calls apart cheaply: the type of each argument, a tensor's dtype and
    shape (a bad batch's shape raises a validation check; good ones make graphs)."""
    key = [len(args)]
    for value in args:
        key.append((value._datatype_enum(), value._shape_tuple())
                   if type(value) is EAGER_TENSOR else type(value))
    for name, value in kwargs.items():
        key.append(name)
        key.append((value._datatype_enum(), value._shape_tuple())
                   if type(value) is EAGER_TENSOR else type(value))
    return tuple(key)


MAX_QUIET_KEYS = 16
"""Kinds of calls (`call_key`) kept quiet at once; beyond, every call is."""


def _with_key(quiet: list | None, left: int, keys: int, key: tuple):
    """The kinds of calls a quiet while applies to: `key`, and those of the `quiet` one
    still under way (calls of two shapes that both raise: neither traces each call)."""
    if quiet is None or quiet[left] <= 0 or len(quiet) <= keys:
        return frozenset((key,))
    if quiet[keys] is None or len(quiet[keys]) >= MAX_QUIET_KEYS:
        return None
    return quiet[keys] | {key}


def quiet_while(streak: int, trace_time: float, plain_time: float) -> tuple[int, int]:
    """(calls, calls left below which a returning call ends the while) after the
    `streak`-th trace in a row that raised the call's own exception (`RAISED_SHARE`)."""
    doubling = 2.0 ** min(streak - 1, 40)
    budget = trace_time / (RAISED_SHARE * max(plain_time, 1e-6))
    calls = int(min(max(doubling, budget), 2.0 ** 40))
    return calls, calls - int(min(doubling, budget))


class Generation(GuardFailures, Outcomes, InconclusiveTries):
    """Tracing specializations and generalizing the plan (see the module docstring)."""

    # -- generating a graph
    def _generate_unlocked(self, args, kwargs, cfg: Config):
        """Trace a new specialization (holding the busy slot, not the lock)."""
        try:
            spec = self._generate(args, kwargs, cfg)
        finally:
            self._release()
        if isinstance(spec, _Eager):
            return spec
        if spec is None:
            return self._unsupported() if self.unsupported else \
                _Eager(FallbackCategory.UNSUPPORTED, self.last_failure_reason)
        return spec

    def _trace_outcome(self, args, kwargs, cfg: Config, outcomes: dict, first: bool):
        """A call whose graphs failed an in-graph guard on fed numbers traces the graph of
        its own outcome (janus/outcomes.py `TRACE_NOW`, holding the busy slot) and runs it;
        should that graph fail a guard too, the call reruns plainly (`outcomes`: the
        in-graph guards this call failed so far; `first`: none before the last one)."""
        step = self._generate_unlocked(args, kwargs, cfg)
        if isinstance(step, RaisedInTrace):
            return self._raised_in_trace(step, args, kwargs, cfg)
        if isinstance(step, _Eager):
            return self._eager(args, kwargs, step)
        return self._run_retrying(step, args, kwargs, cfg, outcomes, first)

    def _generate(self, args, kwargs, cfg: Config):
        converted = convert(self.fn)
        context = distribute.context_key()
        with self._lock:
            recorded = list(self._warm_graphs)
        if recorded and not context:  # records assume no tf.distribute strategy
            spec = self._load_recorded(recorded, args, kwargs, converted)
            if spec is not None:
                return spec
        if self.profile.thread_writes:  # (another thread writes meanwhile: F470)
            return ThreadWait(*self.profile.thread_writes[0])
        refused = self.profile.certain_refusal()
        if refused is not None:  # every profiled call did something a graph refuses:
            reason, (function, filename, lineno) = refused  # do not trace
            with self._lock:
                self._generation_failed(ConversionError(
                    reason, function=function, filename=filename, lineno=lineno), cfg)
            return None
        start = time.perf_counter()
        with self._lock:
            base = self.plan  # (other threads' guard failures may generalize it meanwhile)
        try:
            with limits.trace_room():  # (janus's frames per level: F349, F368)
                spec = generate(self._next_id, converted, base, self.profile, args, kwargs,
                                self._env(args, kwargs), self._expected_inputs,
                                frozenset(self.blocked_plans), cfg.max_list_items)
        except Exception as exc:  # noqa: BLE001 - any trace failure means: run eagerly
            internal = None
            if isinstance(exc, InconclusiveTrace) and exc.made is not None:
                return self._inconclusive(exc, context)
            with self._lock:
                self.inconclusive = 0  # (a conclusive trace: failed or refused)
            exc = formatted_text.settled(safety.unwound_refusal(exc) or exc)
            exc = stand_in_calls.misused(exc) or exc  # (janus's stand-in, not the user)
            if isinstance(exc, BuildsOnFirstCall) and self.builds < MAX_BUILDS:
                with self._lock:
                    self.builds += 1
                return _Eager(FallbackCategory.UNSUPPORTED, exc.describe(), "plain")
            if isinstance(exc, UnlearnedRecursion) and exc.key not in self.reprofiled:
                # (whatever the plan: the recursion is learned by profiling this call,
                # asked once per function, Profile.self_calls: recursion/self_calls.py)
                with self._lock:
                    self.reprofiled.add(exc.key)
                    self.profile.self_calls.add(exc.key[1])
                return _Eager(FallbackCategory.UNSUPPORTED, exc.describe(), "profiled")
            if isinstance(exc, Unprofiled) and len(self.reprofiled) < MAX_REPROFILES and \
                    exc.key not in self.reprofiled and not self.plan_history and \
                    not cache.is_warm(self):
                # (a warm start's profile that does not fit is dropped instead, and the
                # function profiled afresh: cache/warm.py; a test a profiled run did not
                # record either, Python-valued there, fails as any trace; so does a trace
                # of a generalized plan: retreating from it is the answer, a fed number
                # made the test a tensor)
                with self._lock:
                    self.reprofiled.add(exc.key)
                return _Eager(FallbackCategory.UNSUPPORTED, exc.describe(), "profiled")
            if safety.raised_by_janus(exc) and not safety.misbound(exc, self.fn, args, kwargs):
                # (a bug, not a limit, nor arguments that do not fit: say so; tests raise it)
                internal = self.report_internal("tracing a graph", exc, give_up=False)
            elif not isinstance(exc, ConversionError) and \
                    self.raised_traces < MAX_RAISED_TRACES:
                with self._lock:
                    self.raised_traces += 1
                # (counted if plain Python does not raise it; not kept in a local: its
                # traceback holds this frame, a cycle, F441)
                return RaisedInTrace(exc, time.perf_counter() - start)
            with self._lock:
                self._generation_failed(safety.known_limit(exc), cfg)
            return internal
        finally:
            with self._lock:
                self.stats.time_generating += time.perf_counter() - start
        spec.context = context
        if spec.collective_strategy is not None:  # (also when profiling was skipped)
            self.profile.collective_strategy = spec.collective_strategy
        with self._lock:
            self.raised_streak = self.inconclusive = 0  # (a trace that made a graph)
            if spec.plan != base and self.plan == base:
                self._generalize(spec.plan, proven=True)  # (the trace fed values it found
                # varying, by role)
            # (a plan another thread generalized during the trace stays: the new graph is
            # valid under its guards, only outdated, and makes room first at the limit)
            self._next_id += 1
            self.stats.generations += 1
            self._expected_inputs = spec.inputs
            self.specializations.insert(0, spec)
            parked, self.parked = self.parked, []  # (other outcomes' graphs)
            self.specializations += [p for p in parked if p.plan == spec.plan and
                                     not same_outcome(p, spec, args, kwargs) and
                                     len(self.specializations) < cfg.max_specializations]
            events.emit("generated", self, spec)
        return spec

    def _load_recorded(self, recorded: list, args, kwargs, converted):
        """The first graph recorded by an earlier process (warm start) that fits this call,
        loaded as a specialization (None: none fits). A loaded graph is not offered again;
        the others are, to later generations."""
        env = self._env(args, kwargs)
        for entry in recorded:
            sid, plan, graph = entry
            start = time.perf_counter()
            try:
                spec = portable.load(graph, args, kwargs, env, self._next_id, plan, converted)
            except Exception as exc:  # noqa: BLE001 - generate instead
                self.report_internal("loading a recorded graph", exc, give_up=False)
                spec, failed = None, True
            else:
                failed = False
            with self._lock:
                self.stats.time_generating += time.perf_counter() - start
                if failed and entry in self._warm_graphs:
                    self._warm_graphs.remove(entry)
                if spec is None:
                    continue
                if entry in self._warm_graphs:
                    self._warm_graphs.remove(entry)
                spec.record_id = sid
                self._next_id += 1
                self.specializations.insert(0, spec)
                self.last_decision = "graph loaded from the cache"
                events.emit("generated", self, spec)
                return spec
        return None

    def after_raised(self, step: RaisedInTrace, raised: BaseException | None,
                     cfg: Config, plain_time: float = 0.0, key: tuple = ()) -> None:
        """The plain run of a call whose trace raised the user's kind of exception: the
        same kind raised again is the call's own error (no failed generation: calls like
        it, `key`, that would trace run plainly for a while: `RAISED_SHARE`); none, or
        another, is a trace that fails where Python does not."""
        with self._lock:
            if raised is not None and type(raised) is type(step.error):
                self.raised_traces -= 1  # (the call's own: not a trace janus fails at)
                self.raised_streak += 1
                calls, ends_below = quiet_while(
                    self.raised_streak, getattr(step, "trace_time", 0.0), plain_time)
                if self.specializations or self.parked or self._warm_graphs or \
                        self.profile.collective_strategy is not None or \
                        events.hears_repeats("fallback"):
                    quiet = self.raise_quiet  # (checked by `_dispatch`)
                    self.raise_quiet = [calls, ends_below, _with_key(quiet, 0, 2, key)]
                else:  # no graph to fit them: at once, before janus's decision (`__call__`)
                    self._limit_skip = [*settled_epoch(), calls,
                                        QUIET_AFTER_RAISE.category.value, ends_below,
                                        _with_key(self._limit_skip, 2, 5, key)]
                return
            self._generation_failed(safety.known_limit(step.error), cfg)

    def _generation_failed(self, exc: Exception, cfg: Config, final: bool = False):
        """Count a failed generation: retreat from the last generalization, or give up
        (`final`: a failure no other plan avoids: no retreat, give up at once). A plan the
        ladder's untouched rung made is not counted: the plan without that rung follows
        (`_untouched_failed`: janus/guard_failures.py, F367)."""
        untouched = not final and bool(self.plan_history) and self._untouched_made(self.plan)
        if not untouched:
            self.stats.generation_failures += 1
        self.last_failure_reason = safety.explain_exception(exc, self.fn)
        self.last_trace_error = exc = detached(exc)  # (kept: no frames, F397)
        events.emit("generation_failed", self, self.last_failure_reason)
        if cache.abandoned_warm_start(self):
            return  # the warm-start profile did not fit: profile afresh
        retreated = bool(self.plan_history) and not final
        if retreated:  # the general graph failed: back to the more specialized plan
            self.general_failure = self.last_failure_reason  # (janus.explain shows it)
            self.blocked_plans.add(self.plan)
            failed, self.plan = self.plan, self.plan_history.pop()
            # a test made general by the failed plan is not made general again under a
            # later plan (another number fed, a list grown...): it would fail alike
            # (zoo p01: a `print` in the branch, retried at each plan change)
            self.refused_branches |= failed.general_branches - self.plan.general_branches
            if untouched:
                self._untouched_failed(failed)
                return
        counted = self.stats.generation_failures >= cfg.max_generation_failures
        split = _graph_value_in_python(exc) and cfg.segments and self._own_line(exc)
        if counted and retreated and self.generalizing and not split and \
                any(spec.calls >= 2 for spec in self.specializations):
            # the general graphs fail, the specialized ones are reused: keep making
            # those and stop generalizing (zoo p06: each varying size's general graph
            # failed alike, and janus gave up on the function: slower than eager)
            self.generalizing = False
            self._warn_once("generalizing", f"{self.__qualname__}: generalized graphs "
                            f"failed {self.stats.generation_failures} times (last: "
                            f"{self.general_failure}); janus stops generalizing it and "
                            "keeps a graph per case, up to janus.config.max_specializations "
                            f"({cfg.max_specializations})")
            return
        if final or counted or split or \
                isinstance(exc, ConversionError) and not retreated and not self.specializations:
            # (a general value needed as Python in this function's own code: the
            # specialized graphs it replaces keep failing; split there instead)
            self.unsupported = exc if isinstance(exc, ConversionError) else \
                safety.Reason(self.last_failure_reason)
            self._warn_once("giveup", self._give_up_message(exc, cfg))
            events.emit("gave_up", self, self.last_failure_reason)

    def _own_line(self, exc: ConversionError) -> bool:
        """Whether `exc` was raised at a line of this function itself (not a callee; in
        its converted code, a loop's body or a branch is a `janus__` function of its own)."""
        code = getattr(self.fn, "__code__", None)
        return code is not None and exc.filename == code.co_filename and \
            (exc.function in (code.co_name, self.fn.__qualname__) or
             exc.function.startswith("janus__")) and \
            any(line == exc.lineno for _, _, line in code.co_lines())

    def _give_up_message(self, exc: Exception, cfg: Config) -> str:
        """What giving up on a whole-function graph means for this function's calls."""
        name = self.__qualname__
        if isinstance(exc, ConversionError) and (cfg.segments or cfg.mixed):
            how = "split at its graph breaks, with graphs for the rest" if cfg.segments \
                else "eagerly, the functions it calls as graphs of their own"
            where = f"{exc.function} ({exc.filename}:{exc.lineno}): {exc.reason}"
            return (f"janus makes no single graph of {name}: {where}; it runs {how} "
                    f"(janus.explain({name}) shows how)")
        return f"janus gives up on {name} and runs it eagerly from now on: " \
               f"{self.last_failure_reason}"

    # -- choosing a specialization, or making room for one
    def _dispatch(self, args, kwargs, cfg: Config, context: tuple):
        start = time.perf_counter()
        misses = []
        for spec in self.specializations:
            if spec.context != context:
                continue  # traced under another tf.distribute strategy or context
            failed = spec.guards.check(args, kwargs)
            if failed < 0:
                self._limit_misses = 0
                self.stats.time_guards += time.perf_counter() - start
                if spec is not self.specializations[0]:
                    self.specializations.remove(spec)
                    self.specializations.insert(0, spec)
                return spec
            misses.append((spec, failed))
        self.stats.time_guards += time.perf_counter() - start
        if self.plan is None:
            self.plan = plan_from_profile(self.profile, self.plan_seed)
            if self.plan != Plan():  # if the general graph fails, retreat to specialized ones
                self.plan_history = [Plan()]
        at_limit = misses and len(self.specializations) >= cfg.max_specializations and \
            self._stale(cfg) is None
        churn = self._churn
        if misses and self._limit_quiet > 0 and (at_limit or churn.waits(self.stats, cfg)):
            self._limit_quiet -= 1  # (no graph is made: learning from each miss only slows)
            self._limit_misses += 1
            spec, failed = misses[0]  # (counted, not learned from: stats stay true)
            self._count(self.stats.guard_failures, spec.guards.guards[failed].describe())
            if self._limit_misses >= LIMIT_QUIET and not cfg.strict and \
                    self.profile.collective_strategy is None and \
                    not events.hears_repeats("fallback"):
                self._limit_misses = 0  # none fit: the next calls skip even the guards
                self._limit_skip = [*settled_epoch(), LIMIT_SKIP,
                                    FallbackCategory.LIMIT.value, -1, None]
            return _AT_LIMIT if at_limit else _CHURNED
        if misses and churn.waits(self.stats, cfg):  # (nor here: a churning function learns
            spec, failed = misses[0]  # from the miss of a retry's call alone, F379)
            self._count(self.stats.guard_failures, spec.guards.guards[failed].describe())
            return self._churned(cfg)
        if misses:
            spec, failed = self._miss_to_learn_from(misses, args, kwargs)
            self._host_guard_failed(spec, spec.guards.guards[failed], args, kwargs, cfg)
        if len(self.specializations) >= cfg.max_specializations:
            if churn.waits(self.stats, cfg):  # (no graph is made: none is dropped for room)
                return self._churned(cfg)
            self._drop_outdated(cfg)
        if len(self.specializations) >= cfg.max_specializations:
            self._warn_once("limit", f"{self.__qualname__}: {cfg.max_specializations} "
                            "specializations made and none fits this call; it runs eagerly. "
                            "Raise janus.config.max_specializations if this is expected.")
            self._limit_quiet = LIMIT_QUIET
            return _AT_LIMIT
        if self._busy:
            return _Eager(FallbackCategory.BUSY, "another thread is generating a graph")
        if churn.blocks(self.stats, cfg):
            return self._churned(cfg)
        gate = self.generation_gate  # (a segment's churn bounds: fallback/churn.py)
        refused = gate() if gate is not None else ""
        if refused:
            return _Eager(FallbackCategory.LIMIT, refused)
        if self.stats.calls <= self.retrace_after:  # (inconclusive traces: F384)
            return RETRACE_WAITS
        quiet = self.raise_quiet  # (traces raised the call's own exception: RAISED_SHARE)
        if quiet is not None and quiet[0] > 0 and \
                (quiet[2] is None or call_key(args, kwargs) in quiet[2]):
            quiet[0] -= 1
            return QUIET_AFTER_RAISE
        if self._converted() is None:
            return self._unsupported()
        self._busy = True
        return "generate"

    def _churned(self, cfg: Config) -> _Eager:
        """A call no graph fits while the function churns: it runs plainly (said once)."""
        self._warn_once("churn", self._churn.message(self.__qualname__, self.stats, cfg))
        self._limit_quiet = LIMIT_QUIET  # (the next misses learn nothing either: F379,
        # also below the limit, after `_drop_outdated` made room)
        return _CHURNED

    def _drop_outdated(self, cfg: Config):
        """At the limit, the least recently used specialization traced under a plan the
        function has since generalized makes room (the current plan's graphs stay); else
        the least recently used one, if no call ran it for `2 * max_specializations`
        calls (a program that moved on: an annealed value stepped stage by stage, a
        curriculum; a function whose graphs are not reused stops generating instead:
        churn_bound.py `Churn`)."""
        for spec in reversed(self.specializations):
            if spec.plan != self.plan:
                self.specializations.remove(spec)
                events.emit("dropped", self, spec)
                return
        oldest = self._stale(cfg)
        if oldest is not None:
            self.specializations.remove(oldest)
            self._churn.evicted.note(oldest, cfg)
            events.emit("dropped", self, oldest)

    def _stale(self, cfg: Config):
        """The least recently used specialization, if no call ran it for
        `2 * max_specializations` calls, else None."""
        oldest = self.specializations[-1] if self.specializations else None
        if oldest is not None and not oldest.runs_plain and \
                self.stats.calls - oldest.last_call >= 2 * cfg.max_specializations:
            return oldest
        return None

    # -- XLA variants of a specialization (graphgen/xla.py, graphgen/xla_trial.py)
    def _after_graph_call(self, spec, runner, trial, elapsed: float, total: float,
                          cfg: Config) -> tuple:
        """Bookkeeping after `spec`'s graph ran a call (under the lock): counts, the plain
        trial (graphgen/plain_trial.py) or XLA's (graphgen/xla_trial.py); whether to build
        an XLA variant now, and its recorded decision."""
        spec.calls += 1
        spec.last_call = self.stats.calls
        self.stats.graph_calls += 1
        self.stats.time_graph += elapsed
        spec.time_graph += elapsed
        build_xla, recorded = False, None
        if spec.plain_trial is not None or (spec.calls <= plain_trial.START + 2 or
                                             spec.calls == spec.plain_retry_at) and \
                plain_trial.eligible(self, spec, total):
            if spec.plain_trial is None:  # graphgen/plain_trial.py (one trial at a time)
                plain_trial.start(spec, int(bool(spec.plain)), spec.plain, total)
            elif plain_trial.after_call(spec, spec.plain_trial, "graph", total):
                events.emit("plain_decided", self, spec)
        elif trial is not None or spec.accelerated is not None:  # graphgen/xla_trial.py
            change = xla_trial.after_call(spec, trial, runner is not spec or
                                          spec.accelerated is not None, elapsed)
            if change:
                events.emit("xla_decided", self, spec)
            if change == "dropped":
                self._warn_once(f"xla{spec.id}", f"{self.__qualname__}: XLA turned off "
                                f"for specialization #{spec.id}: {spec.xla}")
        elif cfg.xla and spec.calls >= xla.MIN_CALLS and xla.eligible(spec):
            recorded = self._recorded_xla(spec)
            if recorded is not None and not recorded["keep"]:
                xla_trial.recorded_off(spec, recorded)  # measured before: not again
            else:
                spec.xla, build_xla = "compiling (the plain graph serves meanwhile)", True
        events.emit("graph_run", self, spec, elapsed)
        self.last_decision = f"graph (specialization #{spec.id})"
        return build_xla, recorded

    def _recorded_xla(self, spec: Specialization) -> dict | None:
        """The XLA decision an earlier process recorded for this very specialization
        (warm start: cache/warm.py), or None (under the lock, once per specialization)."""
        if not self._xla_recorded:
            return None
        if not spec.record_id:
            try:
                spec.record_id = record.spec_id(self, spec)
            except Exception:  # noqa: BLE001 - no id, no recorded decision: measure
                return None
        return self._xla_recorded.get(spec.record_id)

    def _start_xla(self, spec: Specialization, inputs: list, recorded: dict | None = None):
        """Hand `spec` to the background XLA compiler (graphgen/xla.py); never waits.
        `recorded`: an earlier process measured XLA faster here: kept without a trial."""
        def done(variant, reason):
            with self._lock:
                if variant is not None and recorded is not None:
                    xla_trial.keep_recorded(spec, variant, recorded)
                elif variant is not None:
                    spec.xla = "measuring (compiled; real calls alternate with the plain graph)"
                    spec.trial = xla_trial.XlaTrial(variant)
                else:
                    spec.xla = f"off ({reason})"
                    events.emit("xla_decided", self, spec)

        if not xla.compiler.submit(spec, inputs, done):
            with self._lock:
                spec.xla = ""  # the compiler is busy: a later call tries again
