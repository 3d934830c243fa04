"""Whether janus's way of running a function it cannot make one graph of pays, against
the function itself.

Such a function runs split at its graph breaks (fallback/segmented.py: segments as
graphs, the Python between them mixed) or mixed as a whole (fallback/mixed.py: its
callees through their own jits, an optimizer update as one graph). Each segment is
kept only if its graph pays (fallback/trial.py), and a mixed run whose callees ran no
graph runs plainly (mixed.PLAIN_AFTER), but what the whole costs is in neither: a call
layer per segment, the hooks, a segment kept for a stretch run in only some calls,
callees whose small graphs cost more than their eager ops inside the caller's tape. On
the zoo's p102 (TransE with host-drawn negatives) the split ran at 0.8x plain after 40
calls; p04 (a VAE whose `encode`/`decode` methods ran as graphs of their own) mixed at
0.8x. So the whole is tried, as a specialization's small graph is
(graphgen/plain_trial.py):

- When: once it is steady — `QUIET` calls in a row in which nothing was traced or
  rebuilt (a generation is a one-time cost, not what a call costs) — and every
  segment has decided (kept or eager), or `SETTLE_CALLS` calls ran since the split was
  built. Not under tf.distribute or with collectives (every worker must take the same
  path), and only while a graph runs in its calls (a segment's, a callee's, an update's:
  without one, the mixed runner turns plain on its own).
- How: interleaved rounds of real calls (graphgen/trial.py), the function run plainly
  (the user's function itself: the reference, so results, prints, exceptions, the heap
  and variables are plain's by construction) the candidate, janus's run the incumbent.
  A janus call that traced or was rebuilt abandons the trial (it waits
  again; `MAX_TRIALS` a function).
- Decision: plain when it measured faster by both of `gain`'s measures (a tie keeps
  janus's run). Then the function runs as it is for good (a split's segment graphs are
  dropped; `janus.explain` says why, and the function settles: fallback/settled.py). A
  split kept is tried again after it is rebuilt (a new break, a segment run inline),
  within `MAX_TRIALS`.

Pure bookkeeping (snapshots and times in, decisions out); fallback/segmented.py and
fallback/mixed.py run it.
"""
from __future__ import annotations

import dataclasses
import time

from janus.graphgen import trial as rounds_mod

QUIET = 3
"""Calls in a row without a trace or rebuild before a trial starts."""
SETTLE_CALLS = 8
"""Split calls since its build after which it is tried even with segments on trial."""
MAX_TRIALS = 4
"""Trials of one function's split (abandoned ones included)."""
ROUNDS = rounds_mod.ROUNDS
"""Timed rounds (one call of each kind) of a trial (fewer on a clear win or loss)."""
MIN_GAIN = 1.0
"""Plain wins when it measured more than this many times as fast as janus's run by both
measures (a tie keeps janus's run)."""

clock = time.perf_counter
"""Wall time, as every trial (a graph's ops run on TensorFlow's threads)."""


@dataclasses.dataclass
class WholeTrial:
    """One function's trial of janus's run against its plain run (see the module
    docstring); kinds of call are "plain" and "janus"."""

    kind: str = "split"  # what janus's run is ("split", "mixed"), for the decision's text
    state: str = "waiting"  # -> "trying" -> "kept" | "plain"
    quiet: int = 0  # split calls in a row that changed nothing
    since_build: int = 0
    trials: int = 0
    rounds: rounds_mod.Rounds | None = None
    why: str = ""  # the decision, measured

    def rebuilt(self) -> None:
        """A split was built again: what was measured is of another split."""
        self.since_build, self.quiet = 0, 0
        if self.state in ("trying", "kept"):
            self.state, self.rounds = "waiting", None

    def turn(self, may_try: bool, decided: bool) -> str | None:
        """How the next call runs while it is tried: "plain" or "janus"; None when it is not
        (`may_try`: a graph runs in its calls and no collective forbids it; `decided`:
        every segment is kept or eager)."""
        if self.state == "waiting" and may_try and self.trials < MAX_TRIALS and \
                self.quiet >= QUIET and (decided or self.since_build >= SETTLE_CALLS):
            self.state, self.trials = "trying", self.trials + 1
            self.rounds = rounds_mod.Rounds("plain", "janus", ROUNDS)
        if self.state != "trying":
            return None
        return self.rounds.turn

    def ran(self, kind: str | None, seconds: float, changed: bool) -> str:
        """A call ran (`kind` as `turn` said, None outside a trial) in `seconds`; `changed`:
        it traced or rebuilt. Returns "plain" once the function should run
        as it is, else ""."""
        if kind != "plain":
            self.since_build += 1
            self.quiet = 0 if changed else self.quiet + 1
        if self.state != "trying" or kind is None:
            return ""
        if changed:  # (a one-time cost in a timed split call)
            self.state, self.rounds = "waiting", None
            return ""
        self.rounds.record(kind, seconds)
        if not self.rounds.done:
            return ""
        gain = self.rounds.gain()
        plain, ours = self.rounds.medians()
        n = min(len(self.rounds.times["plain"]), len(self.rounds.times["janus"]))
        measured = f"median {self.kind} call {rounds_mod.ms(ours)} vs plain " \
                   f"{rounds_mod.ms(plain)} in {n} interleaved rounds"
        self.rounds = None
        if gain > MIN_GAIN:
            self.state = "plain"
            self.why = f"runs as it is: the {self.kind} run does not pay ({measured})"
            return "plain"
        self.state = "kept"
        self.why = f"the {self.kind} run pays ({measured})"
        return ""
