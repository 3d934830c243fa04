"""Heap numbers the profiled calls saw change (janus/number_reads.py), fed from the first
graph, by role, instead of guarded by value (a guard the next call fails, and a second
generation that feeds them: the ladder, janus/ladder.py); heap lists they saw grow,
taken as only appended to (no length guard) from the first graph too:

    self.running_reward = 0.05 * r + 0.95 * self.running_reward
        profiled: 0.0, 0.52, 1.01   first graph: `args[0].running_reward` a fed float64
    self.episode_lengths.append(len(rewards))
        profiled: lengths 0, 1      first graph: the list only appended to

A fed number used where the trace needs its Python value (`range(self.depth)`, a shape,
an index into a Python list, a dict key, a branch with effects), or such a list read,
fails the trace: `generate` (graphgen/specialize.py) traces that generation again with
them guarded as before (`Feeding.retreat`: at most twice), and remembers their roles
(`NumberReads.unfed`): no later generation generalizes them from the profile again.
"""
from __future__ import annotations

import dataclasses

from janus import number_reads
from janus.errors import BuildsOnFirstCall
from janus.graphgen.plan import Plan
from janus.graphgen.sources import MODULES, Source, evaluate
from janus.graphgen.tracer import Tracer


class FeedingTracer(Tracer):
    """A Tracer that feeds the heap numbers the profile saw change and takes the heap lists
    it saw grow as only appended to (`feed`: not after a retreat in this generation).
    `fed` maps the roles it so generalized, beyond its plan, to "number" or "list"."""

    def __init__(self, plan: Plan, profile, expected_inputs: list, expected_tables: dict,
                 env: tuple, args: tuple, kwargs: dict, feed: bool = True):
        super().__init__(plan, profile, expected_inputs, expected_tables)
        reads = number_reads.known(profile) if feed else None
        self._reads = reads if reads is not None and reads.varying else None
        self._call = (args, kwargs, env[2], env[3])
        self.fed: dict[str, str] = {}

    def import_value(self, value, source: Source):
        if self._reads is not None:
            if number_reads.is_number(value) and not self.plan.is_scalar(source):
                if self._wanted(source, length=False):
                    self.plan = self.plan.with_scalar(source.role)
                    self.fed[source.role] = "number"
            elif type(value) is list and not self.plan.is_append_only(source) and \
                    not self.plan.is_fed_length(source) and \
                    not self.plan.is_dynamic_list(source.expr):
                if self._wanted(source, length=True):
                    self.plan = self.plan.with_append_only(source.role)
                    self.fed[source.role] = "list"
        return super().import_value(value, source)

    def _wanted(self, source: Source, length: bool) -> bool:
        role = source.role
        return role not in self.plan.kept and role not in self._reads.unfed and \
            self._varied(source, length)

    def _varied(self, source: Source, length: bool) -> bool:
        """Whether the profiled calls read different numbers (`length`: lists of different
        lengths) at `source` (its holder found again by its path: what the graph's guards
        read on each call)."""
        try:
            if source.steps:
                op, name = source.steps[-1]
                holder = evaluate(source.parent(), *self._call)
                if op == "item" and type(holder) is not dict:
                    return False
                holder = number_reads.holder_of(holder) if op == "attr" else holder
            elif source.root[0] == "global":
                holder, name = self._call[2], source.root[1]
            elif source.root[0] == "module":
                holder, name = MODULES[source.root[1]], source.root[2]
            else:
                return False
            return self._reads.varies(holder, (number_reads.LENGTH, name) if length else name)
        except Exception:  # noqa: BLE001 - a path that does not read again: guarded
            return False


class Feeding:
    """One generation's feeding of what the profile saw change, and its retreats (at most
    two extra traces): a trace that failed on a fed number used as a Python value
    (FedScalarMisuse naming its role) retraces with that one guarded (`plan.kept`, as the
    ladder's); any other failure (a list read after all, say), or a second one, retraces
    with none of them generalized (not kept: the ladder may still generalize them after a
    guard fails, as before)."""

    def __init__(self, profile):
        self.profile = profile
        self.fed: dict[str, str] = {}  # roles generalized this generation: "number"/"list"
        self.retreats = 0

    def tracer(self, plan: Plan, inputs: list, tables: dict, env: tuple, args: tuple,
               kwargs: dict) -> FeedingTracer:
        return FeedingTracer(plan, self.profile, inputs, tables, env, args, kwargs,
                             feed=self.retreats < 2)

    def traced(self, plan: Plan, tracer, blocked: frozenset) -> Plan | None:
        """`plan` generalizing what `tracer` did too, or None (the trace is redone without
        it: that plan's graph failed before, `blocked`)."""
        fed = getattr(tracer, "fed", None)
        if not fed:
            return plan
        self.fed.update(fed)
        wider = plan
        for role, kind in sorted(fed.items()):
            wider = wider.with_scalar(role) if kind == "number" else \
                wider.with_append_only(role)
        if wider in blocked:
            self._unfeed_all()
            return None
        return wider

    def retreat(self, plan: Plan, tracer, exc: BaseException, misuse) -> Plan | None:
        """The plan to trace again after the trace under `plan` failed (`exc`; `misuse`:
        the FedScalarMisuse behind it, if any), or None: not for what the profile saw
        change."""
        self.fed.update(getattr(tracer, "fed", None) or {})
        if not self.fed or self.retreats >= 2 or isinstance(exc, BuildsOnFirstCall):
            return None
        if not self.retreats and misuse is not None and \
                self.fed.get(misuse.role) == "number":
            self.retreats = 1
            number_reads.of(self.profile).unfed.add(misuse.role)
            del self.fed[misuse.role]
            return plan.with_kept({misuse.role})
        roles = set(self.fed)
        self._unfeed_all()
        return dataclasses.replace(plan, scalars=plan.scalars - roles,
                                   append_only=plan.append_only - roles)

    def _unfeed_all(self) -> None:
        self.retreats = 2
        number_reads.of(self.profile).unfed.update(self.fed)
