"""Deciding, on real calls, whether a specialization's graph pays against plain Python.

A graph call has a fixed host cost (0.1-0.5 ms here); a function of a few small ops
runs faster plainly (`x * 2.0 + 1.0`: ~0.05 ms eager, ~0.15 ms as a graph). The standard
(issues 10/11): a function janus cannot speed up must not get slower. So a small graph is
put on trial once, against the user's function run plainly:

- When: at one of a specialization's graph calls `START` to `START + 2`, the first of
  them (feed and write-back included) taking under `MAX_GRAPH_S`. A loaded machine
  makes a trivial graph's calls spike to several ms for a while (F364: three spiked
  calls kept a 70x slower graph for good), so one whose three calls did not is given
  `LATER` chances: the `WINDOW` graph calls from each of the calls `LATER` are noted,
  and a trial starts when their median is under `MAX_GRAPH_S` (a median: neither a
  moment of load nor a lucky fast call of a bigger graph decides). Bigger graphs (real
  models) always pay and are never tried: nothing is added to their calls (a few
  comparisons in those windows) — unless plain Python was measured faster: a graph
  call taking over `PROFILED_OVER` times the function's profiled calls (plain runs
  with janus's profiler on, so slower than plain) is tried whatever its size (F378: a
  Python loop over 1000 floats fed as 1001 inputs, 8.5 ms a graph call against 0.1 ms
  plain, was never tried). Its plain runs are then bounded by that graph call's time
  rather than `MAX_PLAIN_S`. Not tried either: a segment's graph (fallback/segmented.py
  decides those), graphs traced under tf.distribute or with collectives (every worker
  must take the same path), recursion, a specialization with
  an XLA decision under way (one trial at a time; XLA is considered only from its 3rd
  call, after this trial, and a plain decision wins: its graph no longer runs).
- How: interleaved rounds of real calls (graphgen/trial.py, as for XLA), plain Python
  the candidate, the graph the incumbent, timed alike in wall time. A plain turn runs
  the user's function itself: plain Python is the reference, so results, prints,
  exceptions, the heap and variables are plain's by construction. A second plain run
  taking over `MAX_PLAIN_S` (or the graph call's time, when over) ends the trial (the
  function is big enough for its graph to pay; one such run may be the machine's
  hiccup); a trial is `1 + ROUNDS` plain calls at most, all but one under that bound.
- Decision: plain when it measured faster than the graph by both measures (a tie keeps
  the graph). `spec.plain` says what was decided and why (explain, the graph cache and
  `janus cache show` show it); `stats.plain_calls` counts the calls run plainly.
- Afterwards: a specialization decided plain runs the calls it fits plainly (a fast
  path in JitFunction.__call__: its guards, then the function; plain Python is right in
  any tf.distribute context too). Only one call in `UNCHECKED + 1` checks even that:
  the `UNCHECKED` after it run the function at once (janus's checks cost 3-5 us a
  call, 10% of a 40 us function; a call they would have sent to a graph runs plainly,
  which is right, only not faster). It is not measured again
  on a schedule: its plain run *is* plain Python, so what it costs over plain is janus's
  dispatch alone, and a graph measured slower on the same work stays slower. What can
  change is the work itself: a general specialization (dynamic dimensions) may be fed
  bigger inputs later. So its checked calls are watched (a count and a comparison):
  when most of `WATCH` in a row take over `SLOWER` times the trial's plain median, a
  new trial runs (at most `MAX_RECHECKS` per specialization).
- A close graph decision (the graph less than `CLOSE`x as fast as plain) is measured
  once more, `RETRY_AFTER` graph calls later: a trial of 6 rounds can be swayed by a
  moment of load on the machine. Other graph decisions are final.
- A graph that raises where plain Python raises too (an op of the user's fails, an
  assertion): the call runs again plainly, which raises, so each such call costs a graph
  run and a plain one (2-3x plain). After `RAISING` such calls, more than its graph
  calls that returned, the specialization runs plainly (`decide_raising`); `QUIET` plain
  calls in a row that do not raise bring its graph back.

`conclude` and `after_call` are pure bookkeeping (times in, decision out): tests feed
them made-up timings.
"""
from __future__ import annotations

import statistics
import time

from janus import events
from janus.graphgen import trial as trial_mod
from janus.recursion import limits

START = 2            # the first graph call (per specialization) that may start a trial
MAX_GRAPH_S = 0.002  # graphs slower than this per call always pay: never tried
LATER = (8, 32, 128)  # graph calls that start a later window, when calls 2-4 were slower
WINDOW = 8           # ... graph calls per window, whose median decides
MAX_PLAIN_S = 0.002  # a plain run slower than this ends the trial: the graph pays
PROFILED_OVER = 1.0  # a graph call over this times the profiled calls' mean is tried
MIN_GAIN = 1.0       # plain is chosen only when faster than this (both measures)
MAX_RAISES = 3       # plain trial runs that raised before the trial gives up (graph)
WATCH = 16           # plain calls per window of the watch on a plain decision
SLOWER = 2.0         # ... a call over this times the trial's plain median is slow
MAX_RECHECKS = 2     # trials after the first, per specialization
UNCHECKED = 15       # calls of a plain decision run at once after each checked one
RAISING = 3          # calls whose graph raised as plain Python did, before plain
QUIET = 8            # ... plain calls in a row without raising that bring the graph back
CLOSE = 1.5          # a graph decision by less than this gain is measured once more...
RETRY_AFTER = 50     # ... this many graph calls later


class PlainTrial(trial_mod.Rounds):
    """A trial under way (see the module docstring), then, if plain won, the watch on
    the calls run plainly; `recheck` is the number of trials before this one."""

    def __init__(self, recheck: int = 0, max_plain: float = MAX_PLAIN_S):
        super().__init__("plain", "graph")
        self.recheck = recheck
        self.max_plain = max_plain  # plain runs over this end the trial (twice)
        self.decided = False  # plain won: calls run plainly and are watched
        self.raises = 0
        self.over = 0  # plain runs over MAX_PLAIN_S
        self.slow_limit = float("inf")
        self.window = self.slow = 0
        self.line = ""  # once decided plain: what explain's "last call" says
        self.raising = False  # decided because the graph raised (decide_raising)
        self.quiet = 0  # ... plain calls in a row since that did not raise

    def plain_turn(self) -> bool:
        """Whether the next call runs plainly as a trial call."""
        return not self.decided and self.turn == "plain"

    def watch(self, seconds: float) -> bool:
        """Note one plain call of a plain decision; True when it is measured again."""
        self.window += 1
        self.slow += seconds > self.slow_limit
        return self.window >= WATCH and self.window_due()

    def window_due(self) -> bool:
        """At the end of a window of `WATCH` calls: whether most were slow (starts the
        next window)."""
        due = 2 * self.slow > WATCH and self.recheck < MAX_RECHECKS
        self.window = self.slow = 0
        return due


def eligible(jit, spec, seconds: float) -> bool:
    """Whether `spec` (of `jit`), whose graph call just took `seconds`, is put on trial:
    in its first calls or a later window's (noting `seconds` there), or again at a close
    graph decision's retry."""
    if not (jit.config.plain_trial and getattr(jit, "segment_of", None) is None and
            not spec.xla and spec.trial is None and spec.accelerated is None and
            not spec.context and not spec.distributed and spec.collective_strategy is None
            and jit.profile.collective_strategy is None and not spec.subgraphs):
        return False
    if START <= spec.calls <= START + 2 and not spec.plain:
        if seconds < MAX_GRAPH_S or plain_faster(jit, seconds):
            return True
        if spec.calls == START + 2:
            spec.plain_retry_at = LATER[0]  # (the caller asks again at that call)
        return False
    if spec.calls != spec.plain_retry_at:
        return False
    if spec.plain:  # a close graph decision's retry
        return seconds < MAX_GRAPH_S or plain_faster(jit, seconds)
    return _later_window(jit, spec, seconds)


def plain_faster(jit, seconds: float) -> bool:
    """Whether a graph call of `seconds` took over `PROFILED_OVER` times the mean of
    `jit`'s profiled calls (plain runs, slowed by the profiler): plain Python measured
    faster, the graph is tried whatever its size (F378)."""
    stats = jit.stats
    return stats.profile_calls > 0 and \
        seconds > PROFILED_OVER * stats.time_profiling / stats.profile_calls


def _later_window(jit, spec, seconds: float) -> bool:
    """A graph call in one of the later windows of an untried `spec` (see the module
    docstring): True when the window's median is under `MAX_GRAPH_S`, else the call at
    which the caller asks next is set (the window's next one, or the next window's)."""
    times = spec.window_times
    times.append(seconds)
    if len(times) < WINDOW:
        spec.plain_retry_at = spec.calls + 1
        return False
    median = statistics.median(times)
    times.clear()
    tried = median < MAX_GRAPH_S or plain_faster(jit, median)
    later = [call for call in LATER if call > spec.calls]
    spec.plain_retry_at = later[0] if later and not tried else -1
    return tried


def start(spec, recheck: int = 0, before: str = "", seconds: float = 0.0) -> None:
    """Put `spec` on trial (again, after `recheck` trials, when `before` was decided;
    `seconds`: the graph call that made it eligible, the bound of plain runs if over
    `MAX_PLAIN_S`)."""
    spec.runs_plain = False
    spec.plain_trial = PlainTrial(recheck, max(MAX_PLAIN_S, seconds))
    why = "plain runs got slower" if before.startswith("plain") else "the graph won by little"
    spec.plain = "measuring (real calls alternate between the graph and plain Python)" \
        if not recheck else f"measuring again ({why}; before: {before})"


def conclude(spec, trial: PlainTrial) -> None:
    """Decide from the trial's timed calls and note why in `spec.plain`."""
    gain = trial.gain()
    plain_median, graph_median = trial.medians()
    rounds = min(len(trial.times["plain"]), len(trial.times["graph"]))
    measured = (f"median {trial_mod.ms(graph_median)} as a graph vs "
                f"{trial_mod.ms(plain_median)} plain, {rounds} interleaved rounds of real "
                "calls" + (f"; measured again {trial.recheck}x" if trial.recheck else ""))
    if gain > MIN_GAIN:
        trial.decided, spec.runs_plain = True, True
        trial.slow_limit = SLOWER * plain_median
        spec.plain = f"plain (the graph does not pay: plain Python was {gain:.2f}x as " \
                     f"fast: {measured})"
        trial.line = f"plain (specialization #{spec.id} fits; its graph does not pay)"
    else:
        spec.plain_trial, spec.runs_plain = None, False
        spec.plain = f"graph (it pays: plain Python was {gain:.2f}x its speed: {measured})"
        if gain > 1.0 / CLOSE and not trial.recheck:
            spec.plain_retry_at = spec.calls + RETRY_AFTER


def decide_raising(jit, spec) -> bool:
    """Note a call on which `spec`'s graph raised and plain Python raised too; True when
    `spec` now runs plainly (see the module docstring)."""
    spec.failures["raised as plain Python did"] += 1
    raised = spec.failures["raised as plain Python did"]
    if raised < RAISING or raised <= spec.calls or spec.runs_plain or \
            not jit.config.plain_trial or getattr(jit, "segment_of", None) is not None or \
            spec.context or spec.distributed or spec.collective_strategy is not None or \
            jit.profile.collective_strategy is not None:
        return False
    trial = spec.plain_trial = PlainTrial()
    trial.decided = trial.raising = spec.runs_plain = True
    spec.plain = (f"plain (its graph raised on {raised} calls, as plain Python did, and "
                  f"returned on {spec.calls}: each such call ran twice)")
    trial.line = f"plain (specialization #{spec.id} fits; its graph raises)"
    return True


def _graph_pays(spec, why: str) -> None:
    spec.plain_trial, spec.runs_plain = None, False
    spec.plain = f"graph ({why})"


def after_call(spec, trial: PlainTrial, kind: str, seconds: float,
               raised: bool = False, watched: bool = False) -> bool:
    """Bookkeeping after a call of `spec` under `trial` (under the jit's lock): `kind` is
    "graph" or "plain" (a trial call, or one of a plain decision), `raised` whether the
    plain run raised (not timed), `watched` whether the caller already noted a plain
    decision's call with `trial.watch` (and it was due). True when `spec.plain` changed."""
    if trial is not spec.plain_trial:
        return False  # concluded meanwhile (another thread)
    if trial.decided:
        if kind != "plain" or raised or not (watched or trial.watch(seconds)):
            return False
        start(spec, trial.recheck + 1, spec.plain, trial.max_plain)
        return True
    if kind == "plain" and trial.turn == "plain":
        if raised:
            trial.raises += 1
            if trial.raises >= MAX_RAISES:
                _graph_pays(spec, f"{MAX_RAISES} plain runs on trial raised: not measured")
                return True
            return False
        trial.over += seconds > trial.max_plain
        if trial.over >= 2:
            _graph_pays(spec, f"it pays: plain runs took over {trial_mod.ms(trial.max_plain)}, "
                              f"the bound below which janus measures (the last "
                              f"{trial_mod.ms(seconds)})")
            return True
    trial.record(kind, seconds)
    if not trial.done:
        return False
    conclude(spec, trial)
    return True


def run(jit, spec, args, kwargs):
    """`jit`'s function run plainly on a call `spec` fits (counted in `stats.calls`
    already): its graph does not pay, or this is a plain turn of its trial.
    `JitFunction.__call__` has the same inline as its fast path."""
    start = time.perf_counter()
    try:
        value = limits.plain_call(jit.fn, args, kwargs, jit._own_frames)
    except BaseException:
        ran(jit, spec, time.perf_counter() - start, True, True)
        raise
    ran(jit, spec, time.perf_counter() - start, True, False)
    return value


def ran(jit, spec, elapsed: float, counted: bool, raised: bool) -> None:
    """Bookkeeping after a plain run of `spec` that took `elapsed` (`counted`: in
    `stats.calls` already; `raised`: the function raised). Lean: the fast path's (the
    watch of a plain decision inline)."""
    with jit._lock:
        stats = jit.stats
        stats.calls += not counted
        stats.plain_calls += 1
        stats.time_plain += elapsed
        spec.plain_calls += 1
        spec.last_call = stats.calls
        trial = spec.plain_trial
        if trial is not None and trial.raising:  # (decide_raising: no unchecked calls)
            trial.quiet = 0 if raised else trial.quiet + 1
            if trial.quiet >= QUIET:
                spec.failures["raised as plain Python did"] = 0
                _graph_pays(spec, f"{QUIET} plain calls in a row did not raise")
                events.emit("plain_decided", jit, spec)
            jit.last_decision = trial.line
            return
        if trial is not None and trial.decided:
            if raised:
                return
            trial.window += 1  # (PlainTrial.watch)
            trial.slow += elapsed > trial.slow_limit
            if trial.window < WATCH or not trial.window_due():
                jit.last_decision = trial.line
                jit.run_unchecked(spec, UNCHECKED)
                return
        if trial is not None and after_call(spec, trial, "plain", elapsed, raised,
                                            watched=True):
            events.emit("plain_decided", jit, spec)
        jit.last_decision = f"plain (specialization #{spec.id}, graph vs plain: {spec.plain})"
