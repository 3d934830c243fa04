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
- How: `ROUNDS` interleaved rounds of real calls (graphgen/trial.py; fewer only on a
  win by `CLEAR_WIN` either way: `_AllRounds`), the function run plainly
  (the user's function itself: the reference, so results, prints, exceptions, the heap
  and variables are plain's by construction) the candidate, janus's run the incumbent.
  A janus call that traced or was rebuilt abandons the trial (it waits
  again; `MAX_TRIALS` a function).
- Decision: plain when it measured faster by both of `gain`'s measures (a tie keeps
  janus's run). Then the function runs as it is for good (a split's segment graphs are
  dropped; `janus.explain` says why, and the function settles: fallback/settled.py). A
  split kept is tried again after it is rebuilt (a new break, a segment run inline),
  within `MAX_TRIALS`.
- Drift: a kept run's calls are timed on (a clock read each side of the call), and the
  median of every `WATCH` of them is compared with what the trial measured: `DRIFT`
  times faster, the path its calls take changed and janus's fixed cost a call may now
  be what it costs (early stopping: after `s.stopped` the step returns at once, 0.01 ms
  plain against 0.04 ms split, F327): it is tried again (`MAX_DRIFT_TRIALS` times; each
  trial measures afresh, so it takes another `DRIFT`-fold change to try again). Not when
  slower: a segment between graphs (regenerating on credit, fallback/churn.py) runs
  plainly for a while, and its own bounds drop it if that lasts (fallback/trial.py).

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
"""Timed rounds (one call of each kind) of a trial (fewer on a clear win either way)."""
MIN_GAIN = 1.0
"""Plain wins when it measured more than this many times as fast as janus's run by both
measures (a tie keeps janus's run)."""

WATCH = 8
"""Kept calls whose median is compared with what the trial measured."""
DRIFT = 4.0
"""A kept run whose calls' median became this many times as fast as what its trial
measured is tried again."""
MAX_DRIFT_TRIALS = 3
"""Trials a function's drift may start (besides `MAX_TRIALS`)."""

clock = time.perf_counter
"""Wall time, as every trial (a graph's ops run on TensorFlow's threads)."""


class _AllRounds(rounds_mod.Rounds):
    """Rounds that end early only on a win by `CLEAR_WIN` either way (not on the bare
    "every plain call slower than every janus call"): the calls of a whole function
    take paths of different cost (an optimizer update every k-th call, a print every
    10th), and two rounds of c i i c can put both costly calls on one side (probe b03b:
    gradients applied every 3rd call, 3x the cost; the split measured at 29 ms against
    plain 81 ms, then 1.3-1.5x plain for good). All `ROUNDS`, in the order c i i c
    c i i c ..., give each kind every phase of a period of 2 or 3 calls alike (F328)."""

    @property
    def done(self) -> bool:
        plain, ours = self.times[self.candidate], self.times[self.incumbent]
        rounds = min(len(plain), len(ours))
        if rounds >= self.rounds:
            return True
        return rounds >= rounds_mod.EARLY_ROUNDS and len(plain) == len(ours) and (
            max(plain) * rounds_mod.CLEAR_WIN < min(ours) or
            max(ours) * rounds_mod.CLEAR_WIN < min(plain))


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
    measured: float = 0.0  # the kept run's median call in its trial
    watched: list = dataclasses.field(default_factory=list)  # kept calls' seconds
    drift_trials: int = 0

    def rebuilt(self) -> None:
        """A split was built again: what was measured is of another split."""
        self.since_build, self.quiet = 0, 0
        if self.state in ("trying", "kept"):
            self.state, self.rounds = "waiting", None

    def watch(self, seconds: float) -> None:
        """A call of the kept run took `seconds`: try it again when the calls' median
        became `DRIFT` times as fast as what its trial measured (see the docstring)."""
        watched = self.watched
        watched.append(seconds)
        if len(watched) < WATCH:
            return
        now, self.watched = sorted(watched)[WATCH // 2], []
        if self.state == "kept" and self.drift_trials < MAX_DRIFT_TRIALS and \
                now * DRIFT < self.measured:
            self.state, self.drift_trials = "waiting", self.drift_trials + 1
            self.trials = min(self.trials, MAX_TRIALS - 1)
            self.why += f"; tried again: its calls now take {rounds_mod.ms(now)}"

    def turn(self, may_try: bool, decided: bool) -> str | None:
        """How the next call runs while it is tried: "plain" or "janus"; None when it is not
        (`may_try`: a graph runs in its calls and no collective forbids it; `decided`:
        every segment is kept or eager)."""
        if self.state == "waiting" and may_try and self.trials < MAX_TRIALS and \
                self.quiet >= QUIET and (decided or self.since_build >= SETTLE_CALLS):
            self.state, self.trials = "trying", self.trials + 1
            self.rounds = _AllRounds("plain", "janus", ROUNDS)
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
        self.state, self.measured, self.watched = "kept", ours, []
        self.why = f"the {self.kind} run pays ({measured})"
        return ""
