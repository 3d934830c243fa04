"""What tells that a function's graphs churn (`Churn`, asked by generation.py's
`_dispatch`): they are made and dropped without being reused, so janus stops generating
for it.

    graphs made 16, graph calls 12             fewer than two calls a graph (F139)
    the last 8 graphs dropped for room ran     inputs with more distinct shapes than
    1, 2, 1, 1, 3, 1, 2, 1 calls               `max_specializations`, a graph each (F371)

A churning function still generates now and then (`ChurnRetries`: a program that moved
on to a steady stage gets its graph, F325); its kept graphs serve the calls they fit.
"""
from __future__ import annotations

import collections

from janus.config import Config

CHURN_RETRIES = 4
"""Generations a function whose graphs are not reused still tries, each after twice the
wait of the one before (`ChurnRetries`)."""


class ChurnRetries:
    """When a churning function (`Generation._churning`) generates again: the first retry
    `2 * max_specializations` calls after the churn was first seen, each next one after
    twice the wait of the one before, `CHURN_RETRIES` in all (a program that moved on to
    a steady state, an annealed value stepped stage by stage, gets its graph; one that
    keeps churning pays a few generations more, then none)."""

    __slots__ = ("next_call", "wait", "tries")

    def __init__(self):
        self.next_call: int | None = None  # (None: churn not seen yet)
        self.wait = 0
        self.tries = 0

    def start(self, calls: int, cfg: Config) -> None:
        """The schedule, from the call where the churn is first seen."""
        if self.next_call is None:
            self.next_call = calls + 2 * cfg.max_specializations
            self.wait = 4 * cfg.max_specializations

    def due(self, calls: int) -> bool:
        return self.tries < CHURN_RETRIES and calls >= self.next_call

    def take(self, calls: int) -> None:
        self.next_call, self.wait, self.tries = calls + self.wait, 2 * self.wait, self.tries + 1


UNPAID_CALLS = 4
"""Calls (as a graph or plainly) a graph dropped to make room ran, on average over the
last `max_specializations` so dropped, below which its function churns (F371)."""


class Evicted:
    """The calls of the graphs a function dropped last to make room (`_stale`): more
    distinct inputs than `max_specializations`, each needing a graph of its own, make and
    drop graphs that ran a call or two, while the kept ones keep `graph_calls` at twice
    the generations (F139's rule, `_churns`, never fired: 9x slower than plain Python)."""

    __slots__ = ("calls",)

    def __init__(self):
        self.calls: collections.deque = collections.deque()

    def note(self, spec, cfg: Config) -> None:
        """`spec` was dropped to make room: its calls, as a graph and plainly."""
        self.calls.append(spec.calls + spec.plain_calls)
        while len(self.calls) > cfg.max_specializations:
            self.calls.popleft()

    def unpaid(self, cfg: Config) -> bool:
        """Whether the last `max_specializations` graphs dropped for room ran fewer than
        `UNPAID_CALLS` calls each on average (a verdict only a further drop changes: the
        kept graphs' calls do not wear it off, as they wore F139's ratio)."""
        return len(self.calls) >= cfg.max_specializations and \
            sum(self.calls) < UNPAID_CALLS * len(self.calls)


class Churn:
    """Whether a function's graphs are made and dropped (`churns`): `max_specializations`
    generations or more with fewer than two calls each run as graphs (a generation costs a
    thousand calls of a small function: janus would make it slower than plain Python,
    F139), or the graphs dropped for room ran a call or two each (`Evicted`, F371); and
    whether it waits for its next retry (`ChurnRetries`, F325) meanwhile."""

    __slots__ = ("retries", "evicted")

    def __init__(self):
        self.retries = ChurnRetries()
        self.evicted = Evicted()

    def churns(self, stats, cfg: Config) -> bool:
        generations = stats.generations
        return generations >= cfg.max_specializations and \
            stats.graph_calls < 2 * generations or self.evicted.unpaid(cfg)

    def waits(self, stats, cfg: Config) -> bool:
        """Churning, no retry due (none is taken: a question, F379's misses ask it)."""
        if not self.churns(stats, cfg):
            return False
        self.retries.start(stats.calls, cfg)
        return not self.retries.due(stats.calls)

    def blocks(self, stats, cfg: Config) -> bool:
        """Churning and no retry due; a retry due is taken: this call may generate."""
        if not self.churns(stats, cfg):
            return False
        self.retries.start(stats.calls, cfg)
        if self.retries.due(stats.calls):
            self.retries.take(stats.calls)
            return False
        return True

    def message(self, name: str, stats, cfg: Config) -> str:
        """What janus says (once) when it stops generating for a churning function."""
        evicted = self.evicted.calls
        dropped = f", the last {len(evicted)} dropped to make room {sum(evicted)}" \
            if self.evicted.unpaid(cfg) else ""
        return f"{name}: {stats.generations} graphs generated served {stats.graph_calls} " \
               f"calls{dropped} (calls keep needing another); janus stops generating and " \
               "runs the calls no graph fits plainly. Raise janus.config." \
               "max_specializations if the graphs are meant to be reused later."
