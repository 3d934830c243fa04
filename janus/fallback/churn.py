"""Generation churn of a split function: graphs made for its segments and not reused.

Each segment of a function split at its graph breaks (janus/fallback/segmented.py) is
a jitted function of its own with a trial of its own (janus/fallback/trial.py). Left to
themselves, a segment whose inputs change what its graph specializes on every call (a
host-drawn `t` indexing a list, a dict of logs growing new keys) generates a graph per
call until its trial gives up, and every stretch a re-split makes starts such a trial
afresh: a DDPM step generated 6 graphs of 1-2 s each in 4 calls, 35 s over 40 calls
against 4.5 s plain (zoo p96). The whole-function bound (generation.py `_churning`,
F139) does not see segments. Here:

- a graph is *unreused* when it ran no call after the one that made it, by the time
  its segment made another graph or was dropped (unless an in-graph guard of it failed:
  the graph of one outcome of a test, kept for when that outcome comes back);
- a segment whose last two graphs are both unreused makes no third (a specialized graph
  and the generalized one that follows its failed guard are the usual two): the call
  that would make it runs plainly and the segment is dropped, inline in Python;
- a kept segment makes another graph only on credit (rent or buy): once what its graph
  calls saved since it was kept, and what the calls it ran in Python for want of a
  graph would have saved (the trial's median gain a call), cover what it generated since
  and one more generation (its mean so far); until then a call none of its graphs fits
  runs in Python (zoo p96: a kept sampling loop regenerated for 5 s, saving ms a call);
  a segment whose new inputs keep coming regenerates after paying at most twice;
- the function's segments, kept or not, over all its splits, may leave at most
  `max_specializations` graphs unreused: then none of them generates again (said once
  with a JanusWarning); a segment on trial is dropped, a new one runs inline without a
  trial, a kept one serves the calls its graphs fit and runs the others plainly.

The segment's jit asks before a trace (`JitFunction.generation_gate`, read in
generation.py `_dispatch` where a call no graph fits would generate): a refused call runs
the segment plainly; a steady graph call asks nothing.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable


UNREUSED_IN_A_ROW = 2
"""A segment whose last this many graphs ran only the call that made them makes no more."""


@dataclasses.dataclass
class Budget:
    """A split function's count of unreused segment graphs (`limit` from its config)."""

    limit: Callable[[], int]
    warn: Callable[[str], None]
    unreused: int = 0
    spent: str = ""  # why its segments generate no more ("" while they may)

    def note_unreused(self) -> None:
        """A segment's graph was not reused; past the limit, stop generating."""
        self.unreused += 1
        limit = self.limit()
        if not self.spent and self.unreused >= limit:
            self.spent = (f"{self.unreused} graphs generated for the function's segments "
                          "ran no call after the one that made them (janus.config."
                          f"max_specializations = {limit}): its segments generate no more")
            self.warn(f"{self.spent}; a segment runs the calls its kept graphs "
                      "fit, the others in Python. Raise janus.config.max_specializations "
                      "if its graphs are meant to be reused later.")


class Recent:
    """The graphs a segment's jit made last (their `calls` tell whether they were reused)."""

    def __init__(self):
        self.made: list = []

    def note(self, jit, generations_before: int, budget: Budget) -> None:
        """After a call of `jit`: note a graph it made, judging the one before it."""
        if jit.stats.generations <= generations_before or not jit.specializations:
            return
        spec = jit.specializations[0]  # (a new graph is inserted first and ran the call)
        if self.made and self.made[-1] is spec:
            return
        if self.made and _unreused(self.made[-1]):
            budget.note_unreused()
        self.made = (self.made + [spec])[-UNREUSED_IN_A_ROW:]

    def dropped(self, budget: Budget) -> None:
        """The segment runs in Python from now on: judge its last graph."""
        if self.made and _unreused(self.made[-1]):
            budget.note_unreused()
        self.made = []

    def churning(self) -> bool:
        """Whether its last graphs all ran only the call that made them."""
        return len(self.made) >= UNREUSED_IN_A_ROW and all(_unreused(s) for s in self.made)


@dataclasses.dataclass
class Credit:
    """What a kept segment's graphs saved, against what its jit generated since."""

    saving: float  # seconds a graph call saves (the trial's medians)
    calls_at: int  # its jit's graph calls and generating time when it was kept
    generating_at: float
    generation: float  # mean seconds of one of its generations (trace) so far
    refused: int = 0  # calls that ran in Python for want of credit

    @classmethod
    def kept(cls, stats, graph: float, plain: float) -> "Credit":
        made = max(1, stats.generations + stats.generation_failures)
        saving = plain - graph if math.isfinite(plain - graph) else 0.0
        return cls(max(0.0, saving), stats.graph_calls, stats.time_generating,
                   stats.time_generating / made)

    def allows(self, stats) -> bool:
        """Whether the savings so far (made, and forgone by calls refused a graph) pay
        for what it generated since and one more."""
        saved = (stats.graph_calls - self.calls_at + self.refused) * self.saving
        return saved >= stats.time_generating - self.generating_at + self.generation


def _unreused(spec) -> bool:
    """A graph that ran only the call that made it, and not for want of its outcome: one
    whose in-graph guard failed is the graph of one outcome of a test kept per outcome
    (`if s.i % 5 == 1: print(...)`), run again when that outcome comes back (janus/
    outcomes.py: F326), not a sign of inputs that keep changing."""
    return spec.calls <= 1 and not any(g.describe() in spec.failures
                                       for g in getattr(spec, "in_graph", ()))
