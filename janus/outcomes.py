"""A graph per outcome of the tensor tests janus keeps specialized (a test whose
generalized graph failed: zoo p42's `if counts[-1] == 0: continue` per expert, where an
expert without tokens has a None gradient in Python and zeros in a tf.cond).

A call whose graph fails an in-graph guard (nothing committed) runs the graph of another
outcome: every graph of the same plan whose host guards hold and whose in-graph guards
expect none of the outcomes this call's graphs found otherwise, tried in turn. A call
none fits is a new outcome: it runs plainly (profiled) and the graphs of its case wait
(parked) so the next call traces one for it; janus gives up when it made
`BLOCKED_REGENERATIONS` of them within `BLOCKED_WINDOW` calls (an exit loop that stops
anywhere: F52).

A test on numbers janus feeds (`if s.step % 2 == 0:`) is traced for the outcome of the
call being traced (graphgen/known_numbers.py): the call that meets its new outcome traces
the graph of that outcome at once and runs it (`TRACE_NOW`), the other outcomes' graphs
staying; such graphs are counted per test (two periodic tests need a graph per
combination of their outcomes: F455).
"""
from __future__ import annotations

import collections
import threading

from janus import events, ladder
from janus.config import Config
from janus.errors import ConversionError, EagerRun as _Eager, FallbackCategory

BLOCKED_REGENERATIONS, BLOCKED_WINDOW = 4, 24


def changes_on(guard, spec) -> bool:
    """A guard whose value, once changed, most likely changes on every call: a Python
    number's value, the length of a list the function only appends to or reads the
    length of alone (or one the graph never touches: another outcome of a branch appends
    to it, F356; not assuming it costs nothing)."""
    return guard.kind == "value" and ladder.is_fed_number(guard.expected) or \
        guard.kind == "len" and (guard.source.expr in spec.appended_only or
                                 guard.source.expr in spec.length_only or
                                 guard.source.expr in spec.untouched)


def _occurrence(spec, guard) -> tuple:
    """(test key, n): `guard` is the n-th in-graph guard of its test in `spec` (a test in
    an unrolled loop is guarded once per iteration)."""
    return guard.key, sum(1 for g in spec.in_graph[:guard.index] if g.key == guard.key)


def _contradicts(spec, outcomes: dict) -> bool:
    """Whether one of `spec`'s in-graph guards expects an outcome other than `outcomes`
    says this call's tests had (its graph would fail too)."""
    if not outcomes:
        return False
    seen = collections.Counter()
    for guard in spec.in_graph:
        n = seen[guard.key]
        seen[guard.key] += 1
        if outcomes.get((guard.key, n), guard.expected) != guard.expected:
            return True
    return False


def same_outcome(parked, spec, args, kwargs) -> bool:
    """Whether `parked`, a graph of `spec`'s plan waiting for it, is of the outcome `spec`
    was just traced for, and fits this call: `spec` replaces it (a trace that knew this
    call's outcome, graphgen/known_numbers.py, made it again: F455)."""
    return [(g.key, g.expected) for g in parked.in_graph] == \
        [(g.key, g.expected) for g in spec.in_graph] and parked.guards.check(args, kwargs) < 0


TRACE_NOW = "trace now"
"""`_in_graph_guard_failed`'s answer: the call traces the graph of its own outcome."""

MAX_OTHER_OUTCOMES = 8
"""In-graph guards one call may fail, running other outcomes' graphs, before it reruns
plainly."""


class _Retrying(threading.local):
    """This thread's call while it runs other outcomes' graphs: the in-graph guards
    that failed so far, as {(test key, occurrence): outcome} (None: a first run)."""
    outcomes: dict | None = None
    traced = False  # (it traced the graph of its outcome already: TRACE_NOW, once a call)


_retrying = _Retrying()


class Outcomes:
    """Mixed into Generation: the in-graph guard failures of graphs kept per outcome."""

    # (the id the next graph gets, the in-graph guard's (test key, occurrence), its
    # expected outcome) when a failure of that guard made janus drop its graph to trace
    # the next one (`_regenerated_alike`)
    regenerating: tuple | None = None

    def _in_graph_guard(self, spec, index: int, args, kwargs, cfg: Config):
        """`spec`'s in-graph guard `index` failed (nothing was committed): the graph of
        another outcome runs the call, or it reruns plainly (profiled)."""
        first = _retrying.outcomes is None
        outcomes = {} if first else _retrying.outcomes
        with self._lock:
            guard = spec.in_graph[index]
            outcomes[_occurrence(spec, guard)] = not guard.expected
            other = self._in_graph_guard_failed(spec, guard, cfg, args, kwargs, outcomes,
                                                first)
        if other is TRACE_NOW:  # (this call's outcome, known to the trace: F455)
            _retrying.traced = True
            try:
                return self._trace_outcome(args, kwargs, cfg, outcomes, first)
            finally:
                _retrying.traced = False
        if len(outcomes) > MAX_OTHER_OUTCOMES:  # (each graph tried failed another guard)
            other = None
        if other is not None:  # the graph of this call's outcome (nothing was committed)
            return self._run_retrying(other, args, kwargs, cfg, outcomes, first)
        # The eager rerun is profiled: the next graph learns what this call did.
        return self._eager(args, kwargs, _Eager(FallbackCategory.GUARD_FAILURE,
                                                guard.describe(), "profiled"))

    def _run_retrying(self, spec, args, kwargs, cfg: Config, outcomes: dict,
                      first: bool = True):
        """Run this call with `spec`, the graph of another outcome (`outcomes`: the
        in-graph guards the call failed so far; `first`: none before this one)."""
        _retrying.outcomes = outcomes
        try:
            return self._run_graph(spec, args, kwargs, cfg)
        finally:
            if first:
                _retrying.outcomes = None

    def _in_graph_guard_failed(self, spec, guard, cfg, args, kwargs, outcomes: dict,
                               first: bool = True):
        """Count the failure; generalize the test, or keep a graph per outcome. Returns
        another specialization to run this call with (nothing was committed), or None
        (`outcomes`: the in-graph guards this call failed so far, `first`: none before)."""
        count = self._record_failure(spec, guard, f"{not guard.expected}")
        raises_when = getattr(guard.site, "raises_when", None)
        if raises_when is not None and guard.expected is not raises_when:
            # the call takes a branch that raises (`if loss > limit: raise ...`): its plain
            # rerun raises; no graph would do better, the graph stays for the other calls
            return None
        failed = (_occurrence(spec, guard), guard.expected)
        if spec.calls == 0 and self.regenerating == (spec.id, *failed):
            return self._regenerated_alike(spec, guard, cfg)
        if count >= cfg.failures_to_generalize:
            plan = self.plan.with_general_branch(guard.key[1:])
            if spec in self.specializations:
                self.specializations.remove(spec)
            if plan not in self.blocked_plans and plan != self.plan and \
                    guard.key[1:] not in self.refused_branches:
                # (its graph waits: should the general graph fail — a print in the
                # branch — the plan retreats and its next graph brings this outcome's
                # back, not a trace again: F326)
                self.parked = [p for p in self.parked if p is not spec] + [spec]
                self._generalize(plan)
                self.regenerating = (self._next_id, *failed)
                return None
            # its general graph failed (or the plan has it general and the graph still
            # guards it: a test janus keeps specialized, such as `while <tensor> and
            # tries < 5` with a Python counter; generating again would trace the same
            # graph per call): a graph per outcome, unless the outcome changes
            # so often that janus would trace more than run them (an exit loop that stops
            # anywhere: F52). The graph of the outcome that failed stays (last in line):
            # another one this call fits runs it, else (a new outcome) it and the other
            # outcomes' graphs of this case wait for the next graph, traced for the
            # outcome this call's plain run profiles (zoo10-F62: `if step % 5 == 0:
            # print(...)` traced at every change; zoo p42: parking one graph per call
            # took a call per graph to reach the next generation).
            other, same_case = self._other_outcome(spec, args, kwargs, cfg, outcomes, first)
            if other is not None:
                self.specializations.append(spec)
                return other
            if guard.known:
                # a test on fed numbers: a trace of this very call asserts this call's
                # outcome (graphgen/known_numbers.py), so the graph of the new outcome is
                # traced now and runs the call; the other outcomes' graphs keep serving.
                # (Parked, the next call would trace its own outcome, maybe one they
                # have: `if n % 2 == 0` / `if n % 4 == 0` never traced (True, False), F455;
                # when no trace may be made now, a later call of this outcome asks again.)
                self.specializations.append(spec)
                if _retrying.traced or not self._may_trace_now(cfg):
                    return None
                self.regenerating = (self._next_id, *failed)
                if self._count_blocked(guard, cfg):
                    return None
                self._busy = True
                return TRACE_NOW
            for waiting in same_case:
                self.specializations.remove(waiting)
            self.parked = [p for p in self.parked if p is not spec and p not in same_case] + \
                [spec] + same_case
            self.regenerating = (self._next_id, *failed)
            self._count_blocked(guard, cfg)
        return None

    def _count_blocked(self, guard, cfg: Config) -> bool:
        """Count a graph to be traced for a new outcome of `guard`'s test; janus gives up
        (returns True) at `BLOCKED_REGENERATIONS` of them within `BLOCKED_WINDOW` calls:
        of all tests together, or of this test alone when it is on fed numbers (its
        graphs are traced for the outcome of the call that needs them, so two periodic
        tests on a step counter need a graph per combination of outcomes: F455)."""
        key = guard.key if guard.known else None
        recent = self.blocked_regenerations.get(key)
        if recent is None:
            recent = self.blocked_regenerations[key] = \
                collections.deque(maxlen=BLOCKED_REGENERATIONS)
        recent.append(self.stats.calls)
        if len(recent) == recent.maxlen and recent[-1] - recent[0] < BLOCKED_WINDOW:
            # (no plan changes how often it flips: retreating from the last
            # generalization only traced more graphs per outcome, zoo p34)
            self._generation_failed(ConversionError(
                f"the tensor-valued test {guard.describe()} changes from call to call "
                "and its generalized graph failed"), cfg, final=True)
            return True
        return False

    def _may_trace_now(self, cfg: Config) -> bool:
        """Whether a call whose graphs' in-graph guards failed may trace its own graph
        now (as `_dispatch` would let a call no graph fits trace: room for it, no other
        thread tracing, not churning, no tf.distribute agreement to keep)."""
        if self._busy or self.unsupported is not None or \
                self.profile.collective_strategy is not None or \
                self._churn.churns(self.stats, cfg) or self.stats.calls <= self.retrace_after:
            return False
        if len(self.specializations) >= cfg.max_specializations:
            self._drop_outdated(cfg)
        if len(self.specializations) >= cfg.max_specializations:
            return False
        gate = self.generation_gate  # (a segment's churn bounds: fallback/churn.py)
        return gate is None or not gate()

    def _regenerated_alike(self, spec, guard, cfg: Config):
        """`spec`, traced after the graph it replaced failed `guard`, failed the same guard
        (same test, occurrence and expected outcome) on its very first call: the next
        trace would make the same graph again (F338: 6 generations in 8 calls). The
        ladder had nothing left for the test (a graph is replaced on such a failure once
        the test is general in the plan, or cannot be: `_in_graph_guard_failed`), so
        janus gives the site up to Python at once (the function runs split there, or
        plainly), recorded for `janus.explain`. Returns None: the call reruns plainly."""
        self.regenerating = None
        if spec in self.specializations:
            self.specializations.remove(spec)
            events.emit("dropped", self, spec)
        self._generation_failed(ConversionError(
            f"the graph traced again for the calls failing {guard.describe()} failed it on "
            "its first call too (the same graph would be traced again)",
            **guard.site.location()), cfg, final=True)
        return None

    def _other_outcome(self, failed, args, kwargs, cfg, outcomes: dict, first: bool):
        """A specialization of the current plan besides `failed` whose host guards hold
        for this call and whose in-graph guards expect none of the `outcomes` this call's
        graphs found otherwise (the graph of another outcome of tests kept per outcome:
        zoo p42, a graph per subset of experts with tokens, each tried until one fits).
        On a first failure, one whose guard on a changing number or an appended-only
        list's length fails is generalized as any failed host guard is (else the graph
        of that outcome would be traced again for every length: a history list appended
        to every 4th call). Returns (that specialization or None, the specializations
        of this case whose in-graph guards it ruled out)."""
        missed, same_case = None, []
        for spec in self.specializations:
            if spec is not failed and spec.context == failed.context and \
                    not spec.runs_plain:
                # (a graph of an earlier plan whose host guards hold serves its outcome
                # too: the plan fed a list another outcome appends to meanwhile, F455)
                index = spec.guards.check(args, kwargs)
                if index >= 0:
                    if missed is None and spec.plan in (failed.plan, self.plan) and \
                            changes_on(spec.guards.guards[index], spec):
                        missed = (spec, spec.guards.guards[index])
                elif _contradicts(spec, outcomes):
                    if spec.plan == failed.plan:
                        same_case.append(spec)
                else:
                    return spec, []
        if missed is not None and first:
            self._host_guard_failed(missed[0], missed[1], args, kwargs, cfg)
        return None, same_case
