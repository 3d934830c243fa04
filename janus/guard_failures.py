"""What janus learns when a graph does not fit a call.

A host guard failed: the failure is counted and, at the assumption's
`failures_to_generalize`-th failure (at once for a number that changed or a list only
appended to that grew: they most likely change on every call), the plan moves up the
generalization ladder (janus/ladder.py), taking along every other number or append-only
list of the specialization that changed on the same call:

    guard `args[1] == 3` fails (a call with n=4)   plan: feed args[1] as a tensor input
                                                   next call: one graph for every n

A graph failed while it ran (nothing was committed: the call reruns): an in-graph guard
(janus/outcomes.py runs another outcome's graph), a float outside the fast exactness
check's range (the next graph checks op by op), a gradient through a loop that ran no
iteration, a structure the recursion's SubGraph does not cover (profiled), or an op
failing where plain Python then does not (a generalized graph's speculative work: its
generation fails after `SPURIOUS_RAISES` such calls).

A mixin of `janus.generation.Generation`; it uses `JitFunction`'s state (plan,
specializations, failures, lock, stats) and helpers (`_eager`, `_env`, `_count`), and
Generation's `_generation_failed`.
"""
from __future__ import annotations

import dataclasses
import re

import tensorflow as tf

from janus import events, ladder
from janus.config import Config
from janus.errors import ConversionError, EagerRun as _Eager, FallbackCategory
from janus.graphgen import checks, plain_trial, traced_gradients
from janus.graphgen.sources import evaluate
from janus.outcomes import changes_on as _changes_on
from janus.profiler import describe_value

SPURIOUS_RAISES = 2
"""Calls on which a generalized graph raised and plain Python did not, before its
generation counts as failed."""
_LOOP_DID_NOT_RUN = _Eager(FallbackCategory.GUARD_FAILURE, "a loop ran fewer iterations than "
                           "a gradient through it needs (Python's tape gives None there)")
_GUARD_TAG = re.compile(r"janus-guard-(\d+)")  # an in-graph guard's error message


class GuardFailures:
    """Mixed into Generation: failed guards and graphs (see the module docstring)."""

    # -- a host guard failed: the generalization ladder
    def _record_failure(self, spec, guard, actual: str):
        self.failure_counts[guard.key] += 1
        spec.failures[guard.describe()] += 1
        self._count(self.stats.guard_failures, guard.describe())
        self.failures.append((guard.describe(), actual))
        events.emit("guard_failed", self, spec, guard, actual)
        return self.failure_counts[guard.key]

    def _host_guard_failed(self, spec, guard, args, kwargs, cfg):
        try:
            value = evaluate(guard.source, *self._env(args, kwargs))
            actual = repr(describe_value(value))
        except Exception as exc:  # noqa: BLE001
            value, actual = None, f"unreadable ({type(exc).__name__})"
        count = self._record_failure(spec, guard, actual)
        refused = frozenset(self.refused_untouched)
        plan = self._wider_plan(spec, guard, value, count, args, kwargs, cfg, refused)
        fed = ladder.untouched_fed(self.plan, plan, spec) if plan is not None else frozenset()
        if fed:  # (the rung may have taken a read list: the plan without it, should the
            # generation fail: `_untouched_failed`, F367)
            self.untouched_fallbacks[plan] = (fed, self._wider_plan(
                spec, guard, value, count, args, kwargs, cfg, refused | fed))
        self._generalize(plan)

    def _wider_plan(self, spec, guard, value, count: int, args, kwargs, cfg, refused):
        """The plan `guard`'s failure (its `count`-th) makes: the next rung of the ladder,
        with the other numbers and lists that changed on this call; the current plan if
        none (`refused`: lists the untouched rung is refused for: janus/ladder.py)."""
        # A Python number that changed once (a step counter, a decayed rate) most likely
        # keeps changing, as does the length of a list the function only appends to: it
        # becomes a tensor input (or goes unassumed) at once, not after a second graph.
        if count >= (1 if _changes_on(guard, spec) else cfg.failures_to_generalize):
            plan = ladder.next_plan(self.plan, guard, value, spec, refused)
            if plan is None or plan == self.plan or plan in self.blocked_plans:
                plan = self._number_to_feed(spec, guard, args, kwargs)
            if plan is not None:  # (and the others of the kind that fail on this call)
                plan = self._also_changed(spec, guard, plan, args, kwargs, refused)
            return plan
        # the failed guard is not generalized yet (a tree of another shape), but a list
        # only appended to that grew, or a number that changed, would fail the next
        # graph too: generalized at once (zoo p13: `s.depths.append(depth)` in a
        # recursive encoder, a graph per call until janus stopped generating)
        return self._also_changed(spec, guard, self.plan, args, kwargs, refused)

    def _untouched_made(self, plan) -> bool:
        """Whether the ladder's untouched rung made `plan` (janus/ladder.py
        `untouched_fed`) for lists not refused that rung yet."""
        fed, _ = self.untouched_fallbacks.get(plan, (frozenset(), None))
        return bool(fed - self.refused_untouched)

    def _untouched_failed(self, failed) -> None:
        """The generation of `failed`, a plan the untouched rung made (`_untouched_made`),
        failed and the plan retreated: its lists are refused that rung and the plan the
        other rungs made follows, the failure not counted (a read the tracer did not see
        made a read list look untouched: one failure ended in eager, where the list fed as
        a stacked tensor keeps graphs: F367). Each refuses a new list: no loop."""
        fed, fallback = self.untouched_fallbacks.pop(failed)
        self.refused_untouched |= fed
        self._generalize(fallback)

    def _also_changed(self, spec, failed, plan, args, kwargs, refused=frozenset()):
        """`plan` generalizing, too, every other number or append-only list of the
        specialization that changed on this call (`running_reward` and
        `len(episode_lengths)` change together, every call): one generation, not one per
        guard."""
        env = self._env(args, kwargs)
        for guard in spec.guards.guards:
            if guard is failed or not _changes_on(guard, spec):
                continue
            try:
                value = evaluate(guard.source, *env)
            except Exception:  # noqa: BLE001 - an unreadable source: left to its guard
                continue
            if guard.kind == "len" and type(value) is list and len(value) == guard.expected \
                    or guard.kind == "value" and type(value) is type(guard.expected) and \
                    value == guard.expected:
                continue
            wider = ladder.next_plan(plan, guard, value, spec, refused)
            if wider is not None and wider not in self.blocked_plans:
                plan = wider
        return plan

    def _number_to_feed(self, spec, failed, args, kwargs):
        """The failed guard cannot generalize (a count kept guarded): a later number guard
        of the same specialization that fails on this call may (`range(depth) * scale`:
        `depth` stays, `scale` is fed), instead of one graph per value of both."""
        env = self._env(args, kwargs)
        for guard in spec.guards.guards:
            if guard is failed or guard.kind != "value" or \
                    not ladder.is_fed_number(guard.expected):
                continue
            try:
                value = evaluate(guard.source, *env)
            except Exception:  # noqa: BLE001 - an unreadable source fails the check too
                continue
            if type(value) is type(guard.expected) and value == guard.expected:
                continue
            plan = ladder.next_plan(self.plan, guard, value, spec, self.refused_untouched)
            if plan is not None and plan != self.plan and plan not in self.blocked_plans:
                return plan
        return None

    def _miss_to_learn_from(self, misses: list, args, kwargs) -> tuple:
        """The (specialization, failed guard index) to generalize from: the first whose
        failed guard the ladder generalizes, else the first. (Graphs per value of a number
        kept guarded fail on it; the graph for this call's value fails on what changed:
        `s.losses.setdefault(n, []).append(loss)`, its list for `n` grew, zoo p43.)"""
        env = self._env(args, kwargs)
        current = [m for m in misses if m[0].plan == self.plan]  # (older plans' graphs are
        for spec, index in current + [m for m in misses if m[0].plan != self.plan]:  # dropped
            guard = spec.guards.guards[index]  # first: what they assumed may be general now)
            if guard.kind == "len" and self.plan.is_append_only(guard.source):
                continue
            try:
                value = evaluate(guard.source, *env)
            except Exception:  # noqa: BLE001 - an unreadable source: not this one
                continue
            plan = ladder.next_plan(self.plan, guard, value, spec, self.refused_untouched)
            if plan is not None and plan != self.plan and plan not in self.blocked_plans:
                return spec, index
        return misses[0]

    def _generalize(self, plan, proven: bool = False):
        """Make `plan` the current one (`proven`: a graph was just made under it)."""
        if plan is None or plan == self.plan or plan in self.blocked_plans or \
                not (self.generalizing or proven):
            return
        self.plan_history = (self.plan_history + [self.plan])[-self.config.max_plan_history:]
        events.emit("generalized", self, self.plan, plan)
        self.plan = plan

    # -- a graph failed on a call (nothing committed: it reruns)
    def _graph_failed(self, spec, exc, args, kwargs, cfg):
        """An op or an in-graph guard failed: nothing was committed; the call reruns."""
        match = _GUARD_TAG.search(str(exc)) if isinstance(exc, tf.errors.InvalidArgumentError) \
            else None
        if match is None and checks.RANGE_MESSAGE in str(exc) and \
                self._precise_plan() not in self.blocked_plans:
            return self._left_float_range(spec, args, kwargs)
        if match is None and traced_gradients.LOOP_MESSAGE in str(exc):
            # a gradient through a loop that ran no iteration: None in Python, zeros in
            # the graph (graphgen/traced_gradients.py); this call runs plainly, the graph stays
            return self._eager(args, kwargs, _LOOP_DID_NOT_RUN)
        if match is None:  # an op failed: plain Python raises (or not) as it would
            try:
                result = self._eager(args, kwargs, _Eager(
                    FallbackCategory.GUARD_FAILURE,
                    f"graph op failed: {str(exc).splitlines()[0]}"))
            except Exception:
                with self._lock:  # (a graph that keeps raising runs plainly: plain_trial)
                    if plain_trial.decide_raising(self, spec):
                        events.emit("plain_decided", self, spec)
                raise
            self._raised_where_python_did_not(spec, exc, cfg)
            return result
        return self._in_graph_guard(spec, int(match.group(1)), args, kwargs, cfg)

    def _precise_plan(self):
        return dataclasses.replace(self.plan, precise_floats=True)

    def _left_float_range(self, spec, args, kwargs):
        """A float outside the range of the fast exactness check (graphgen/exact_numbers):
        the call reruns plainly; the next graph checks float arithmetic op by op (where
        that plan failed, the graph stays and such calls run plainly, as any op's)."""
        with self._lock:
            self._count(self.stats.guard_failures, "float arithmetic in the fast check's range")
            self.failures.append(("float arithmetic in the fast check's range", "a value "
                                  "outside it"))
            if spec in self.specializations:
                self.specializations.remove(spec)
            self._generalize(self._precise_plan())
        return self._eager(args, kwargs, _Eager(FallbackCategory.GUARD_FAILURE,
                                                "a float left the fast check's range",
                                                "profiled"))

    def _new_structure(self, spec, exc, args, kwargs):
        """A structure the SubGraph does not cover: learn it by profiling this call."""
        with self._lock:
            self.failure_counts[("recursion", spec.id)] += 1
            self._count(self.stats.guard_failures, f"node structure: {exc}")
            self.failures.append(("node structure covered by the SubGraph", str(exc)))
            if spec in self.specializations:
                self.specializations.remove(spec)
        return self._eager(args, kwargs, _Eager(FallbackCategory.GUARD_FAILURE, str(exc),
                                                "profiled"))

    def _raised_where_python_did_not(self, spec, exc, cfg: Config):
        """`spec`'s graph raised (`exc`) on a call plain Python then ran without error.
        A specialized graph's ops wait for its guards (graphgen/dead_ends.after_guards),
        so this is a generalized graph doing work Python skips: a loop's body after its
        exit test, run speculatively in the iteration the test stops (graphgen/exits.py).
        At its `SPURIOUS_RAISES`-th such call the graph is dropped and its generation
        counts as failed: janus retreats from the generalization (and gives up as after
        any `max_generation_failures` failed generations)."""
        with self._lock:
            spec.failures["raised where plain Python did not"] += 1
            if spec.failures["raised where plain Python did not"] != SPURIOUS_RAISES or \
                    spec.plan != self.plan or not self.plan_history:
                return
            if spec in self.specializations:
                self.specializations.remove(spec)
                events.emit("dropped", self, spec)
            self._generation_failed(ConversionError(
                f"the generalized graph raised {type(exc).__name__} on calls plain Python "
                "ran without error (it runs work Python skips, such as a loop's body after "
                "its exit test in the iteration the test stops)"), cfg)
