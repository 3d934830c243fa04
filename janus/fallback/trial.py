"""Whether an outlined segment runs as a graph: its trial, and what ends it.

A `Segment` (one stretch of a function split at its graph breaks, see
janus/fallback/segmented.py) decides, call by call, whether its graph pays:

- it first runs plainly, timed (`PLAIN_RUNS` times, the fastest counts); it is never traced
  if that run is shorter than `MIN_PLAIN_S` (a graph call costs about as much), or if its
  inputs changed structure between the plain runs (each new list length would trace
  again: inside a loop the statements reading them become breaks instead);
- then its steady graph calls and plain runs alternate in interleaved rounds
  (graphgen/trial.py's `Rounds`: `GRAPH_RUNS` timed rounds, fewer on a clear loss of
  the graph) and the graph is kept only if it gains at least 1/`PAYS` (1.11x) over plain
  by both of `gain`'s measures (ratio of the medians, median of the per-round ratios);
- all of it is timed in wall time (`time.perf_counter`): a graph's ops run on
  TensorFlow's own threads, which the calling thread's CPU time does not see (`x * 2 + 1`
  as a graph: 0.143 ms wall but 0.072 ms of the caller's CPU, vs 0.079 ms eager);
- it stops being tried after `MAX_TRIAL_GENERATIONS` graphs or `MAX_TRIAL_MISSES` calls
  missing its graph, and a kept graph that keeps missing (`MAX_MISSES` calls, over
  `MISS_SHARE` of its calls since kept) is dropped;
- graphs it makes and does not reuse are bounded per segment and per function
  (janus/fallback/churn.py): two in a row, and it makes no third; the function's limit
  spent, no segment of it generates again;
- a segment handed a numpy array a graph cannot be fed runs plainly (a graph would fold
  the array's values in);
- a trace failing at one of its lines makes that line a break (or opens the loop/if/with
  around it), and an in-graph guard on an `if` leaving a loop that flips between calls
  opens that `if`: the owner splits the function again before its next call; a trace
  failing in the statements an `if` leaving a loop guards (janus/transform/leave.py)
  opens them, and the owner splits without that rewrite.

A segment that does not pay is dropped: it runs eagerly, inline in the function once the
owner has rebuilt it (no call layer). The decisions are read by the owner through
`Segment.state` / `Segment.why_eager` and the owner's `open`, `break_at` and `run_inline`.
"""
from __future__ import annotations

import re
import time
import types
from typing import Protocol

import gast
import numpy as np

from janus.errors import ConversionError
from janus.fallback import churn
from janus.graphgen import host_arrays
from janus.graphgen import trial as rounds_mod
from janus.graphgen.tracer import EAGER_TENSOR
from janus.recursion import limits
from janus.stats import Stats
from janus.transform import breaks, leave, liveness, segments

PLAIN_RUNS = 2
"""Timed plain runs of a segment before its jit takes over (the fastest counts: a first
run pays TensorFlow's one-time costs)."""
GRAPH_RUNS = 5
"""Timed rounds (one graph and one plain call each) before janus decides whether a
segment's graph pays (fewer when the graph clearly loses)."""
PAYS = 0.9
"""A segment is kept if its graph call takes at most this fraction of the plain run: a
required gain of 1/PAYS (1.11x) by both of graphgen/trial.py's `gain` measures (the
timed graph call includes its feed and write-back; the margin is for the noise of wall
time on a shared machine. At 1.25x, the actor-critic's per-step actor/critic forward
pass, 1.24x faster as a graph, ran eagerly)."""
MIN_PLAIN_S = 0.0005
"""A segment whose plain run takes less than this runs inline without a trace: a graph
call costs about as much (0.3-0.5 ms here)."""
MAX_MISSES = 4
"""A kept segment whose jit regenerates/profiles/falls back this often (and in at least
`MISS_SHARE` of its calls since it was kept) runs eagerly."""
MISS_SHARE = 1 / 3
"""The share of a kept segment's calls that may miss its graphs. Below it the graphs
still pay (a miss costs about a plain run, a graph call saves most of one) and the misses
are what learning a test kept per outcome costs (`s.i += 1; if s.i % 10 == 1: print(...)`
before a break: the failed generalization to a tf.cond, then a graph per outcome, as a
whole function keeps them: zoo10-F62; dropping the segment at its 4th miss left it eager
for good, F326). A generation needs credit on its own (fallback/churn.py)."""
MAX_TRIAL_MISSES = 12
"""Calls of a segment on trial that may miss its graph before it runs eagerly."""
MAX_TRIAL_GENERATIONS = 4
"""Graphs a segment on trial may generate (each a trace) before it runs eagerly."""

_clock = time.perf_counter
"""What segments are timed with: wall time, as graphgen/trial.py's trials (the calling
thread's CPU time misses the graph's ops, run on TensorFlow's own threads). A machine's
changing load weighs on both kinds of call alike: they alternate."""


class Owner(Protocol):
    """What a segment needs of the split function it belongs to (`Segmented`)."""

    stats: Stats
    budget: churn.Budget

    def open(self, line: int, why: str = ...) -> None: ...
    def break_at(self, line: int, reason: str) -> None: ...
    def run_inline(self, stretch: segments.Stretch) -> None: ...
    def locate(self, exc: BaseException | None, name: str, within=None) -> int | None: ...


class Segment:
    """One outlined stretch: its plain function, its jit, and whether the graph pays."""

    def __init__(self, owner: Owner, stretch: segments.Stretch,
                 plain: types.FunctionType, jit):
        self.owner = owner
        self.stretch = stretch
        self.plain = plain
        self.jit = jit
        self.state = "measuring"  # -> "graph" -> "kept" | "eager"
        self.why_eager = ""
        self.plain_time = float("inf")
        self.kept_calls = 0  # calls since it was kept
        self.kept_misses = 0  # of those, the calls its graphs did not run (not refused)
        self.calls = 0
        self.structures: list = []  # of the arguments of its plain runs
        self.appended = frozenset(i for i, name in enumerate(stretch.inputs)
                                  if name in stretch.appended)
        self.rounds: rounds_mod.Rounds | None = None  # the trial, once tried as a graph
        self.array_shapes: dict = {}  # argument index -> shape in the first plain run
        self.recent = churn.Recent()  # the graphs its jit made last (fallback/churn.py)
        self.credit: churn.Credit | None = None  # once kept (fallback/churn.py)
        self.refusals = 0  # generations its jit refused (refused_generation)
        self.refused_why = ""
        jit.generation_gate = self.refused_generation

    def __call__(self, *args):
        self.calls += 1
        state = self.state
        if state == "kept":
            return self._kept_call(args)
        if state == "eager":
            return self._plain_run(args)
        # (janus's bookkeeping around the user's code is guarded on its own: the split
        # function may run as it is, without the mixed runtime's safety net)
        try:
            kind = self._kind_of_call(args)
            if self.owner.budget.spent and kind == "measuring":
                self.drop(self.owner.budget.spent)  # (no trial: it could not make a graph)
                kind = "untimed"
            start = _clock()
            seen = self._counts() if kind == "graph" else None
            self.refused_why = ""  # (set by refused_generation during the call)
        except Exception as exc:  # noqa: BLE001 - nothing ran yet: plainly
            self._internal_error(exc)
            return self._plain_run(args)
        result = self.jit(*args) if kind == "graph" else self._plain_run(args)
        try:
            self._after_call(kind, args, start, seen)
        except Exception as exc:  # noqa: BLE001 - janus's: the result stands
            self._internal_error(exc)
        return result

    def _plain_run(self, args: tuple):
        """The stretch run plainly, with plain Python's room (its own function is a frame
        plain Python has not: recursion/limits.py, F368)."""
        return limits.plain_call(self.plain, args, {}, 1)

    def _kept_call(self, args):
        stats = self.jit.stats
        before, made = stats.graph_calls, stats.generations
        self.refused_why = ""  # (set by refused_generation during the call)
        result = self.jit(*args)
        try:
            self.recent.note(self.jit, made, self.owner.budget)
            self.kept_calls += 1
            if stats.graph_calls > before:
                self.owner.stats.segment_graph_calls += 1
            elif self.recent.churning() and self.refused_why:
                self.drop(self.refused_why)
            elif not self.refused_why and self._missed():
                self.drop(f"its graph kept missing ({MAX_MISSES} calls or more, over "
                          f"{MISS_SHARE:.0%} of its calls, regenerated, profiled or ran "
                          "eagerly after it was kept)")
        except Exception as exc:  # noqa: BLE001 - janus's: the result stands
            self._internal_error(exc)
        return result

    def _missed(self) -> bool:
        """A call since it was kept ran none of its graphs (it regenerated, profiled or
        ran eagerly; not a call the churn bounds refused a graph): whether it misses
        too often now (`MAX_MISSES` such calls, in at least `MISS_SHARE` of its calls)."""
        self.kept_misses += 1
        return self.kept_misses >= MAX_MISSES and \
            self.kept_misses >= MISS_SHARE * self.kept_calls

    def refused_generation(self) -> str:
        """Why its jit makes no graph for the call it is deciding, or "" (the churn
        bounds, janus/fallback/churn.py; asked under the jit's lock, before a trace)."""
        why = self.owner.budget.spent
        if not why and self.recent.churning():
            why = f"its last {churn.UNREUSED_IN_A_ROW} graphs ran only the calls that made " \
                  "them (its inputs keep changing what it specializes on)"
        if not why and self.credit is not None and not self.credit.allows(self.jit.stats):
            self.credit.refused += 1
            why = "its graph calls have not yet saved what another graph costs to generate"
        if why:
            self.refusals += 1
            self.refused_why = why
        return why

    def _kind_of_call(self, args) -> str:
        """How a call of a segment not decided yet runs: "untimed" (plainly), "measuring"
        (plainly, timed), or on trial "plain" or "graph"."""
        for value in args:
            if isinstance(value, np.ndarray) and not host_arrays.supported(value):
                self.why_eager = "handed a numpy value it cannot feed to a graph"
                return "untimed"  # a graph would fold its values in
        if self.state == "measuring":
            return "measuring"
        return self.rounds.turn  # (on trial: plain and graph calls alternate)

    def _counts(self) -> tuple:
        stats = self.jit.stats
        return (stats, stats.graph_calls, stats.generation_failures, stats.generations,
                sum(stats.guard_failures.values()))

    def _after_call(self, kind: str, args, start: float, seen) -> None:
        """What a call of `kind` (see `_kind_of_call`) that started at `start` shows."""
        if kind == "measuring":
            self.plain_time = min(self.plain_time, _clock() - start)
            self.structures.append(_structure(args, self.appended))
            self._note_array_shapes(args)
            if self.calls >= PLAIN_RUNS:
                self.state = "graph"
                self.rounds = rounds_mod.Rounds("graph", "plain", GRAPH_RUNS)
                if self.plain_time < MIN_PLAIN_S:
                    self.drop(f"too short to pay for a graph call (eager "
                              f"{self.plain_time * 1e3:.3f} ms)")
                elif len(set(self.structures)) > 1:
                    self._split_off_varying()
        elif kind == "plain":
            self._timed("plain", _clock() - start)
        elif kind == "graph":
            self._after_graph_call(start, *seen)

    def _after_graph_call(self, start, stats, before, failures, made, guards) -> None:
        self.recent.note(self.jit, made, self.owner.budget)
        if self.refused_why and self.state == "graph":  # (on trial: no graph for good)
            self.drop(self.refused_why)
            return
        if sum(stats.guard_failures.values()) > guards:
            self._guard_failed()
        if stats.generation_failures > failures:
            error = self.jit.last_trace_error
            # a break once the jit gives up (a known limit at once); until then it may
            # retreat to a more specialized plan that traces
            line = self.owner.locate(error, self.plain.__code__.co_name, self.stretch)
            inside = line is not None and compound_around(self.stretch.body, line) is not None
            # (a failure in the `else` of an `if` made by transform/leave.py opens it: the
            # owner splits as it did without the rewrite)
            inside = inside or line is not None and any(
                leave.is_guard(s) and s.lineno <= line <= s.end_lineno for s in self.stretch.body)
            # (before any graph, a failure inside a loop/if/with opens it at once: retrying
            # the whole statement costs a long trace each time)
            if self.jit.unsupported is not None or inside and not self.jit.specializations:
                self._trace_failed(error)
        elif stats.graph_calls > before and stats.generations == made:
            self.owner.stats.segment_graph_calls += 1
            self._timed("graph", _clock() - start)
        elif self.jit.unsupported is not None:
            self.drop("no graph: " + _first_line(self.jit.unsupported))
        elif self.state == "graph" and stats.generations >= MAX_TRIAL_GENERATIONS:
            self.drop(f"no steady graph after {stats.generations} generations (its inputs "
                      "keep changing what it specializes on)")
        elif self.state == "graph" and _misses(stats) >= MAX_TRIAL_MISSES:
            self.drop(f"no steady graph after {MAX_TRIAL_MISSES} calls that regenerated, "
                      "profiled or ran eagerly")

    def _internal_error(self, exc: Exception) -> None:
        """janus's own bookkeeping of this segment failed: the segment runs eagerly from
        now on (recorded and warned as an internal error of its jit)."""
        self.state, self.why_eager = "eager", f"janus internal error: {type(exc).__name__}"
        self.jit.report_internal("keeping a segment's trial", exc, give_up=False)

    def _note_array_shapes(self, args) -> None:
        """A numpy argument whose shape changed between the plain runs is fed with those
        dimensions dynamic from its first graph on (no trace per shape first)."""
        seed = self.jit.plan_seed
        for i, value in enumerate(args):
            if type(value) is np.ndarray:
                first = self.array_shapes.setdefault(i, value.shape)
                if len(first) == value.ndim and first != value.shape:
                    seed = seed.with_dynamic_dims(f"args[{i}]", [
                        d for d, (a, b) in enumerate(zip(first, value.shape)) if a != b])
        self.jit.plan_seed = seed

    def _split_off_varying(self) -> None:
        """Inputs changed structure between the plain runs (a list of numbers or objects
        whose length changes: each length would cost a trace): in a loop, the statements
        reading them become breaks, so the rest of the stretch can still be a graph;
        elsewhere the stretch runs inline."""
        varying = sorted({self.stretch.inputs[i] for i in range(len(self.stretch.inputs))
                          if len({s[i] for s in self.structures}) > 1})
        why = f"reads {', '.join(varying)}: a list whose length changes between calls " \
              "(each length would cost a trace)"
        readers = [s for s in self.stretch.body if liveness.reads(s) & set(varying)]
        # (only inside a loop: a segment run once per call would pay its new traces back
        # only after hundreds of calls)
        if self.stretch.in_loop and readers and len(readers) < len(self.stretch.body):
            for stmt in readers:
                if isinstance(stmt, segments.COMPOUND):
                    self.owner.open(stmt.lineno, why)
                else:
                    self.owner.break_at(stmt.lineno, why)
            self.drop(f"split again: {why}")
        else:
            self.drop(f"its inputs change structure between calls: {why}")

    def _timed(self, kind: str, seconds: float) -> None:
        """A trial call of `kind` ("graph": a steady graph call, or "plain") took
        `seconds` of wall time: note it, and decide once the rounds are done."""
        self.rounds.record(kind, seconds)
        if self.state == "graph" and self.rounds.done:
            self._decide()

    def _decide(self) -> None:
        """Keep the graph if it gains at least 1/`PAYS` over plain, else run inline."""
        gain = self.rounds.gain()
        graph, plain = self.rounds.medians()
        rounds = min(len(self.rounds.times["graph"]), len(self.rounds.times["plain"]))
        measured = f"median graph {rounds_mod.ms(graph)} vs eager {rounds_mod.ms(plain)} " \
                   f"in {rounds} interleaved rounds: a gain of {gain:.2f}x"
        if gain >= _required():
            self.state = "kept"
            self.credit = churn.Credit.kept(self.jit.stats, graph, plain)
        else:
            self.drop(f"does not pay ({measured}; needs {_required():.2f}x)")

    def _guard_failed(self) -> None:
        """An in-graph guard on an `if` that leaves the loop failed again: the branch
        flips from call to call, so the `if` runs in Python (a tensor test that jumps
        cannot be generalized into the graph)."""
        what, _ = self.jit.failures[-1]
        match = _WHERE.search(what)
        if match is None:
            return
        line = int(match.group(1))
        flips = sum(n for k, n in self.jit.stats.guard_failures.items()
                    if _WHERE.search(k) and _WHERE.search(k).group(1) == str(line))
        if flips < 2:
            return
        for stmt in self.stretch.body:
            if isinstance(stmt, gast.If) and stmt.lineno == line and segments.leaves_loop(stmt):
                self.owner.open(line, "its tensor test flips between calls")
                self.drop(f"the test at line {line} that leaves the loop flips between calls")
                return
        # an `if` leaving a loop inside the stretch: the loop runs in Python, the `if` too
        loop = compound_around(self.stretch.body, line)
        if isinstance(loop, (gast.For, gast.While)) and any(
                isinstance(n, gast.If) and n.lineno == line and breaks.leaves(n)
                for n in gast.walk(loop)):
            self.owner.open(loop.lineno, f"the test at line {line} that leaves it flips "
                            "between calls")
            self.owner.open(line, "its tensor test flips between calls")
            self.drop(f"the test at line {line} that leaves the loop at line {loop.lineno} "
                      "flips between calls")

    def _trace_failed(self, exc) -> None:
        """A trace failed at one of the segment's lines: that line is a break."""
        line = self.owner.locate(exc, self.plain.__code__.co_name, self.stretch)
        if line is None:
            if self.jit.unsupported is not None:
                self.drop("no graph: " + _first_line(self.jit.unsupported))
            return
        compound = compound_at(self.stretch.body, line) or \
            compound_around(self.stretch.body, line)
        if compound is not None:  # open it: its parts get segments of their own
            self.owner.open(compound.lineno)
            self.drop(f"a trace failed at line {line}, inside the statement at line "
                      f"{compound.lineno}: {reason_of(exc)}")
            return
        self.owner.break_at(line, reason_of(exc))
        self.drop(f"line {line} is a graph break: {reason_of(exc)}")

    def drop(self, why: str) -> None:
        """Run eagerly from now on: inline in the function once it is rebuilt."""
        self.state, self.why_eager = "eager", why
        self.recent.dropped(self.owner.budget)
        self.jit.discard_graphs()  # (its graphs hold the converted callees they traced)
        self.owner.run_inline(self.stretch)

    def describe(self) -> str:
        s = self.stretch
        where = f"lines {s.first_line}-{s.last_line}" if s.last_line != s.first_line \
            else f"line {s.first_line}"
        state = {"measuring": self.why_eager or "measuring eager time", "graph": "graph (on trial)",
                 "kept": "graph", "eager": f"eager: {self.why_eager}"}[self.state]
        io = f"({', '.join(s.inputs)}) -> ({', '.join(s.outputs)})"
        return f"segment {s.index} ({where}) {io}: {state}; {self.calls} calls, " \
               f"{self.jit.stats.graph_calls} as graph"


def _required() -> float:
    """The gain over plain a segment's graph needs to be kept (1/`PAYS`)."""
    return 1.0 / PAYS if PAYS > 0 else float("inf")


def reason_of(exc) -> str:
    """A short reason for a failed trace."""
    if isinstance(exc, ConversionError):
        return getattr(exc, "reason", None) or _first_line(exc)
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"


_WHERE = re.compile(r":(\d+)\]\s*$")


def _structure(args, appended: frozenset = frozenset()) -> tuple:
    """The types of `args`, with the lengths of lists, tuples and dicts (a change of
    these makes a specialized graph trace again), except for lists the segment only
    appends to (`appended`: their length is no assumption) and lists of eager tensors of
    one dtype (a graph takes them stacked, of any length)."""
    return tuple(_structure_of(a, i in appended) for i, a in enumerate(args))


def _structure_of(value, appended: bool):
    if not isinstance(value, (list, tuple, dict)) or appended and type(value) is list:
        return type(value)
    if type(value) is list and value and all(type(v) is EAGER_TENSOR for v in value):
        dtypes = {v.dtype for v in value}
        if len(dtypes) == 1:
            return (list, "tensors", dtypes.pop())
    return (type(value), len(value))


def _misses(stats) -> int:
    """Calls of a segment's jit that did not run an existing graph."""
    return stats.generations + stats.generation_failures + stats.fallback_calls + \
        stats.profile_calls


def compound_around(stmts: list, line: int):
    """The compound statement of `stmts` whose body holds `line` (not its header line)."""
    for stmt in stmts:
        last = getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
        if isinstance(stmt, segments.COMPOUND) and stmt.lineno < line <= last:
            return stmt
    return None


def compound_at(stmts: list, line: int):
    """The compound statement of `stmts` (or nested in them) whose header is at `line`: a
    trace failing there (a loop's converted body is a function of its own, so the loop's
    frame points at its header) opens it rather than making the whole loop a break."""
    for node in gast.walk(gast.Module(body=stmts, type_ignores=[])):
        if isinstance(node, segments.COMPOUND) and node.lineno == line:
            return node
    return None


def _first_line(exc) -> str:
    text = exc.describe() if hasattr(exc, "describe") else str(exc)
    return text.splitlines()[0] if text else type(exc).__name__

