"""Running a function with graph breaks: Python glue between graph segments.

When a function cannot become one graph because of some statements (its *breaks*: a
`.numpy()`, host randomness, an environment step...), janus splits it there
(janus/transform/segments.py); breaks known from the source (janus/transform/breaks.py)
are split at the first call, before any trace. The split function runs with plain
semantics, mixed like a function janus cannot convert (the user functions it calls
through their own jit); each outlined stretch is a `Segment`: a function of its live-in
names returning its live-out names, run through its own `janus.jit` (profiled,
specialized, guarded, cached, falling back like any jitted function), with the outer
function's globals and cells.

Order of effects is plain Python's: a segment's effects are written back when its graph
returns, before the next Python statement runs; a guard failing inside a segment leaves
nothing of it behind and the segment reruns eagerly, so the call goes on plainly from
there. Host randomness and clocks are breaks: they run in Python, in program order.

Choosing: a segment first runs plainly (timed, twice), then through its jit; once its
graph has run a few times it is kept only if it is faster than the plain run. It is
never traced if its plain run is too short to pay for a graph call, or if its inputs
changed structure between the plain runs (each new list length would trace again); it
stops being tried after a few generations. A segment that does not pay runs inline:
the function is rebuilt without it (no call layer). A segment handed a numpy array
runs plainly (a graph would fold the array's values in). A segment whose trace fails at
one of its lines makes that line a break: the function is split again before its next
call (a bounded number of times).
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import re
import threading
import time
import traceback
import types

import gast
import numpy as np

from janus import source as source_mod
from janus.errors import ConversionError
from janus.graphgen import host_arrays
from janus.graphgen.plan import Plan
from janus.graphgen.tracer import EAGER_TENSOR
from janus.stats import Stats
from janus.transform import breaks, liveness, scope, segments
from janus.fallback import split_report
from janus.fallback.mixed import MixedRunner
from janus.transform.pipeline import convert, fill_locations
from janus.transform.segments import Split

PLAIN_RUNS = 2
"""Timed plain runs of a segment before its jit takes over (the fastest counts: a first
run pays TensorFlow's one-time costs)."""
GRAPH_RUNS = 5
"""Graph runs of a segment before janus decides whether it pays."""
PAYS = 0.8
"""A segment is kept if its graph call takes at most this fraction of the plain run."""
MIN_PLAIN_S = 0.0005
"""A segment whose plain run takes less than this runs inline without a trace: a graph
call costs about as much (0.3-0.5 ms here)."""
MAX_SPLITS = 8
"""Times a function is split again because a segment found a new break."""
MAX_INLINED = 32
"""Times a function is rebuilt to run a segment that does not pay inline."""
MAX_MISSES = 4
"""A kept segment whose jit regenerates/profiles/falls back this often runs eagerly."""
MAX_TRIAL_MISSES = 12
"""Calls of a segment on trial that may miss its graph before it runs eagerly."""
MAX_TRIAL_GENERATIONS = 4
"""Graphs a segment on trial may generate (each a trace) before it runs eagerly."""

_clock = time.thread_time
"""What segments are timed with: the CPU time of the calling thread, which neither other
processes' load on a shared machine nor janus's background work (an XLA compilation)
inflates as they do wall time."""
make_jit = None
"""The JitFunction class, set by janus.function (which imports this module)."""


class Segment:
    """One outlined stretch: its plain function, its jit, and whether the graph pays."""

    def __init__(self, owner: "Segmented", stretch: segments.Stretch,
                 plain: types.FunctionType, jit):
        self.owner = owner
        self.stretch = stretch
        self.plain = plain
        self.jit = jit
        self.state = "measuring"  # -> "graph" -> "kept" | "eager"
        self.why_eager = ""
        self.plain_time = float("inf")
        self.graph_time = float("inf")
        self.graph_runs = 0
        self.misses_when_kept = 0
        self.calls = 0
        self.structures: list = []  # of the arguments of its plain runs
        self.appended = frozenset(i for i, name in enumerate(stretch.inputs)
                                  if name in stretch.appended)
        self.trial_plain = float("inf")  # plain runs interleaved with the graph's trial
        self.trial_plain_runs = 0
        self.plain_next = False
        self.array_shapes: dict = {}  # argument index -> shape in the first plain run

    def __call__(self, *args):
        self.calls += 1
        state = self.state
        if state == "kept":
            stats = self.jit.stats
            before = stats.graph_calls
            result = self.jit(*args)
            if stats.graph_calls > before:
                self.owner.stats.segment_graph_calls += 1
            elif _misses(stats) - self.misses_when_kept >= MAX_MISSES:
                self.drop(f"its graph kept missing ({MAX_MISSES} calls regenerated, profiled "
                          "or ran eagerly after it was kept)")
            return result
        if state == "eager":
            return self.plain(*args)
        for value in args:
            if isinstance(value, np.ndarray) and not host_arrays.supported(value):
                self.why_eager = "handed a numpy value it cannot feed to a graph"
                return self.plain(*args)  # a graph would fold its values in
        start = _clock()
        if state == "measuring":
            result = self.plain(*args)
            self.plain_time = min(self.plain_time, _clock() - start)
            self.structures.append(_structure(args, self.appended))
            self._note_array_shapes(args)
            if self.calls >= PLAIN_RUNS:
                self.state = "graph"
                if self.plain_time < MIN_PLAIN_S:
                    self.drop(f"too short to pay for a graph call (eager "
                              f"{self.plain_time * 1e3:.3f} ms)")
                elif len(set(self.structures)) > 1:
                    self._split_off_varying()
            return result
        if self.plain_next:  # (on trial: plain and graph runs alternate, timed alike)
            self.plain_next = False
            result = self.plain(*args)
            self.trial_plain = min(self.trial_plain, _clock() - start)
            self.trial_plain_runs += 1
            self._decide()
            return result
        stats = self.jit.stats
        before, failures, made = stats.graph_calls, stats.generation_failures, stats.generations
        guards = sum(stats.guard_failures.values())
        result = self.jit(*args)
        if sum(stats.guard_failures.values()) > guards:
            self._guard_failed()
        if stats.generation_failures > failures:
            error = self.jit.last_trace_error
            # a break once the jit gives up (a known limit at once); until then it may
            # retreat to a more specialized plan that traces
            line = self.owner.locate(error, self.plain.__code__.co_name, self.stretch)
            inside = line is not None and _compound_around(self.stretch.body, line) is not None
            # (before any graph, a failure inside a loop/if/with opens it at once: retrying
            # the whole statement costs a long trace each time)
            if self.jit.unsupported is not None or inside and not self.jit.specializations:
                self._trace_failed(error)
        elif stats.graph_calls > before and stats.generations == made:
            self.owner.stats.segment_graph_calls += 1
            self.graph_time = min(self.graph_time, _clock() - start)
            self.graph_runs += 1
            self.plain_next = self.trial_plain_runs < GRAPH_RUNS
            self._decide()
        elif self.jit.unsupported is not None:
            self.drop("no graph: " + _first_line(self.jit.unsupported))
        elif self.state == "graph" and stats.generations >= MAX_TRIAL_GENERATIONS:
            self.drop(f"no steady graph after {stats.generations} generations (its inputs "
                      "keep changing what it specializes on)")
        elif self.state == "graph" and _misses(stats) >= MAX_TRIAL_MISSES:
            self.drop(f"no steady graph after {MAX_TRIAL_MISSES} calls that regenerated, "
                      "profiled or ran eagerly")
        return result

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
                    self.owner.add_break(stmt.lineno, why)
            self.drop(f"split again: {why}")
        else:
            self.drop(f"its inputs change structure between calls: {why}")

    def _decide(self) -> None:
        """Keep the graph or run inline, once both have run `GRAPH_RUNS` times on trial
        (alternating, so a machine's changing load weighs on both alike)."""
        if self.state != "graph" or self.graph_runs < GRAPH_RUNS or \
                self.trial_plain_runs < GRAPH_RUNS:
            return
        plain = self.trial_plain
        self.plain_time = min(self.plain_time, plain)
        if self.graph_time <= PAYS * plain:
            self.state = "kept"
            self.misses_when_kept = _misses(self.jit.stats)
        else:
            self.drop(f"does not pay (graph {self.graph_time * 1e3:.3f} ms vs "
                      f"eager {plain * 1e3:.3f} ms)")

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
        loop = _compound_around(self.stretch.body, line)
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
        compound = _compound_at(self.stretch.body, line) or \
            _compound_around(self.stretch.body, line)
        if compound is not None:  # open it: its parts get segments of their own
            self.owner.open(compound.lineno)
            self.drop(f"a trace failed at line {line}, inside the statement at line "
                      f"{compound.lineno}: {reason_of(exc)}")
            return
        self.owner.add_break(line, reason_of(exc))
        self.drop(f"line {line} is a graph break: {reason_of(exc)}")

    def drop(self, why: str) -> None:
        """Run eagerly from now on: inline in the function once it is rebuilt."""
        self.state, self.why_eager = "eager", why
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


def of(jit) -> "Segmented | None":
    """`jit`'s function split at its graph breaks (made once), or None if it cannot be."""
    with jit._lock:
        if jit.segmented is None:
            try:
                jit.segmented = Segmented.for_function(jit)
            except ConversionError:
                jit.segmented = False
            except Exception as exc:  # noqa: BLE001 - run mixed instead
                jit.segmented = False
                jit.report_internal("splitting at graph breaks", exc, give_up=False)
        return jit.segmented or None


def static_breaks_of(fn, args: tuple = (), kwargs: dict | None = None) -> str:
    """The breaks of `fn` known from its source and the arguments of a call (read through
    instance dictionaries only) that run whenever `fn` runs, described ("" if none): no
    graph of the whole function can be made."""
    try:
        node, info = source_mod.parse_function(source_mod.unwrap(fn))
    except ConversionError:
        return ""
    try:
        params = dict(inspect.signature(fn).bind(*args, **(kwargs or {})).arguments)
    except (TypeError, ValueError):
        params = None
    found = breaks.static_breaks(node, getattr(fn, "__globals__", {}), params, surely_run=True)
    return "; ".join(f"{info.filename}:{line}: {why}" for line, why in sorted(found.items()))


def reason_of(exc) -> str:
    """A short reason for a failed trace."""
    if isinstance(exc, ConversionError):
        return getattr(exc, "reason", None) or _first_line(exc)
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"


_WHERE = re.compile(r":(\d+)\]\s*$")
_LOCATED = re.compile(r"(\S+) \((.+):(\d+)\): ")


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


def _compound_around(stmts: list, line: int):
    """The compound statement of `stmts` whose body holds `line` (not its header line)."""
    for stmt in stmts:
        last = getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
        if isinstance(stmt, segments.COMPOUND) and stmt.lineno < line <= last:
            return stmt
    return None


def _compound_at(stmts: list, line: int):
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


@dataclasses.dataclass
class Break:
    line: int
    reason: str
    text: str = ""


class Segmented:
    """A function split at its breaks (see the module docstring); call it like the function."""

    def __init__(self, fn: types.FunctionType, jit_options: dict, stats=None, jit=None):
        self.fn = fn
        self._lock = threading.RLock()
        self.jit = jit  # the function's own jit: runs the Python parts mixed (see _mixed)
        self.jit_options = dict(jit_options, segments=False, mixed=False)
        self.stats = stats if stats is not None else Stats()
        node, self.info = source_mod.parse_function(fn)
        self.node = node
        for child in gast.walk(node):
            if isinstance(child, (gast.Global, gast.Nonlocal)):
                raise ConversionError("declares global/nonlocal names: not split")
        self.breaks: dict[int, Break] = {
            line: Break(line, why, self.info.line(line))
            for line, why in breaks.static_breaks(node, fn.__globals__).items()}
        self.splits = 0
        self.calls_seen = False
        self.pending: dict[int, str] = {}
        self.open_reasons = breaks.static_openings(node)
        self.opened: set[int] = set(self.open_reasons)
        self.pending_open: set[int] = set()
        self.inline: set[tuple[int, int]] = set()
        self.pending_inline: set[tuple[int, int]] = set()
        self._segments: dict[str, Segment] = {}  # by generated source: kept across splits
        self.segments: list[Segment] = []
        self.whole_failed = ""  # why a trace of the whole function failed, if unlocated
        self.inline_reasons: dict[tuple[int, int], str] = {}
        args = node.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs} | \
            {a.id for a in (args.vararg, args.kwarg) if a is not None}
        self.unbound_reads = liveness.inputs(node.body, params) & scope.local_names(node)
        """Locals the function may read before Python has bound them."""
        self.outer = None  # built at the first call (its arguments may show more breaks)

    def open(self, line: int, why: str = "a trace failed inside it") -> None:
        """Split again before the next call, with the compound statement at `line` Python."""
        with self._lock:
            if line not in self.opened:
                self.pending_open.add(line)
                self.open_reasons.setdefault(line, why)

    def run_inline(self, stretch: segments.Stretch) -> None:
        """Rebuild before the next call with `stretch` Python (no call layer around it)."""
        span = (stretch.first_line, stretch.last_line)
        with self._lock:
            if span not in self.inline:
                self.pending_inline.add(span)

    def add_break(self, line: int, reason: str) -> None:
        """Split again before the next call, with `line` a break."""
        with self._lock:
            if line not in self.breaks:
                self.pending[line] = reason

    def __call__(self, *args, **kwargs):
        with self._lock:  # (threads: one builds, the others wait for its runner)
            runner = self._prepare(args, kwargs)
        return runner(*args, **kwargs)

    def _prepare(self, args, kwargs):
        """Split again if a segment asked for it (or for the first time); the runner."""
        if not self.calls_seen:  # the first call's arguments show more breaks (known
            self.calls_seen = True  # before the first build: not a split again)
            self._breaks_from_arguments(args, kwargs)
            if self.outer is None:
                for line, why in self.pending.items():
                    self.breaks[line] = Break(line, why, self.info.line(line))
                self.pending = {}
        rebuild = False
        if (self.pending or self.pending_open) and self.splits < MAX_SPLITS:
            for line, why in self.pending.items():
                self.breaks[line] = Break(line, why, self.info.line(line))
            self.opened |= self.pending_open
            self.pending, self.pending_open = {}, set()
            self.splits += 1
            rebuild = True
        if self.pending_inline and len(self.inline) < MAX_INLINED:
            self.inline |= self.pending_inline
            rebuild = True
        self.pending_inline = set()
        if rebuild or self.outer is None:
            self._build()
        self.stats.segmented_calls += 1
        return self.runner

    def _breaks_from_arguments(self, args, kwargs) -> None:
        try:
            bound = inspect.signature(self.fn).bind(*args, **kwargs).arguments
        except TypeError:
            return
        found = breaks.static_breaks(self.node, self.fn.__globals__, dict(bound))
        for line, why in found.items():
            self.add_break(line, why)

    def _build(self) -> None:
        split = segments.split(self.node, set(self.breaks), self.fn.__globals__,
                               frozenset(self.opened), frozenset(self.inline))
        body = [b for b in self.node.body if not (
            isinstance(b, gast.Expr) and isinstance(b.value, gast.Constant) or
            isinstance(b, gast.Return) and isinstance(b.value, (gast.Name, gast.Constant)))]
        whole = [s for s in split.stretches if self.whole_failed and body and
                 s.first_line <= body[0].lineno and
                 s.last_line >= (getattr(body[-1], "end_lineno", None) or body[-1].lineno)]
        if whole:  # the function's whole body: known not to make a graph
            self.inline.add((whole[0].first_line, whole[0].last_line))
            self.inline_reasons[(whole[0].first_line, whole[0].last_line)] = \
                f"no graph: {self.whole_failed}"
            split = segments.split(self.node, set(self.breaks), self.fn.__globals__,
                                   frozenset(self.opened), frozenset(self.inline))
        self.split = split
        self.segments = [self._segment(s) for s in split.stretches]
        self.outer = self._compile_outer(split)
        # nothing left to run as a graph: the function as it is
        fn = self.outer if self.segments else self.fn
        # (converted code reads a local Python has not bound as a placeholder, not as
        # UnboundLocalError: a function that may do so runs plainly)
        self.runner = fn if self.unbound_reads else self._mixed(fn)

    def _mixed(self, fn):
        """`fn` run as janus runs a function it cannot make a graph of (mixed: the user
        functions it calls through their own jit, an optimizer update as one graph), so
        the Python between segments is not slower than without segments; `fn` itself
        where that is off or cannot be."""
        jit = self.jit
        if jit is None or not jit.config.mixed:
            return fn
        try:
            converted = convert(fn)
        except Exception:  # noqa: BLE001 - (a try/except, a `global`...): plainly
            return fn
        return MixedRunner(jit, converted, "running split at graph breaks", fn)

    def _segment(self, stretch: segments.Stretch) -> Segment:
        node = stretch.function(self.node)
        named = copy.copy(node)
        named.name = "segment"  # (its index changes when an earlier stretch runs inline)
        key = f"{stretch.inputs}{stretch.outputs}\n" + ast.unparse(gast.gast_to_ast(named))
        seg = self._segments.get(key)
        if seg is None:
            plain = self._compile(node, {})
            info = dataclasses.replace(
                self.info, qualname=f"{self.info.qualname}.<segment {stretch.first_line}-"
                                    f"{stretch.last_line}>")
            plain.__janus_source__ = (node, info)
            plain.__qualname__ = info.qualname
            seg = self._segments[key] = Segment(self, stretch, plain,
                                                make_jit(plain, **self.jit_options))
            seg.jit.segment_of = self
            seg.jit.plan_seed = Plan(append_only=frozenset(
                f"args[{i}]" for i in sorted(seg.appended)))
        seg.stretch = stretch
        return seg

    def _compile_outer(self, split: Split) -> types.FunctionType:
        outer = copy.deepcopy(split.function)
        outer.args.defaults = []
        outer.args.kw_defaults = [None] * len(outer.args.kw_defaults)
        outer.returns = None
        for arg in outer.args.posonlyargs + outer.args.args + outer.args.kwonlyargs + \
                [a for a in (outer.args.vararg, outer.args.kwarg) if a is not None]:
            arg.annotation = None
        fn = self._compile(outer, {split.segments_name: self.segments})
        fn.__defaults__ = self.fn.__defaults__
        fn.__kwdefaults__ = self.fn.__kwdefaults__
        fn.__janus_source__ = (split.function, self.info)
        fn.__qualname__ = self.info.qualname
        return fn

    def _compile(self, node: gast.FunctionDef, extra: dict) -> types.FunctionType:
        """`node` compiled at the user's lines, closing over the original's cells (and
        `extra` names, as cells of their own)."""
        freevars = list(self.fn.__code__.co_freevars)
        params = list(extra) + freevars
        factory = gast.FunctionDef(
            name="janus__factory",
            args=gast.arguments(args=[gast.Name(id=p, ctx=gast.Param(), annotation=None,
                                                type_comment=None) for p in params],
                                posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                kwarg=None, defaults=[]),
            body=[node, gast.Return(value=gast.Name(id=node.name, ctx=gast.Load(),
                                                    annotation=None, type_comment=None))],
            decorator_list=[], returns=None, type_comment=None, type_params=[])
        tree = gast.gast_to_ast(gast.Module(body=[factory], type_ignores=[]))
        fill_locations(tree, self.info.first_line)
        namespace: dict = {}
        exec(compile(tree, self.info.filename, "exec"), {}, namespace)
        inner = namespace["janus__factory"](*([None] * len(params))).__code__
        cells = []
        closure = self.fn.__closure__ or ()
        for name in inner.co_freevars:
            if name in extra:
                cells.append(types.CellType(extra[name]))
            else:
                cells.append(closure[freevars.index(name)])
        fn = types.FunctionType(inner, self.fn.__globals__, node.name, None, tuple(cells))
        fn.__module__ = self.fn.__module__
        return fn

    # -- finding the line a trace failed at
    def locate(self, exc: BaseException | None, name: str, within=None) -> int | None:
        """The line of the code named `name` (the function's or a segment's, within the
        lines of `within` if given) where `exc` (a failed trace) happened."""
        if exc is None:
            return None
        line = None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.name == name and frame.filename == self.info.filename:
                line = frame.lineno
                break
        if line is None:  # a refusal (no trace ran): "f.<segment 3-9> (file:7): why"
            match = _LOCATED.match(exc.describe() if hasattr(exc, "describe") else str(exc))
            if match and match.group(1).split(".<segment")[0] == self.info.qualname and \
                    match.group(2) == self.info.filename and self.node.lineno <= \
                    int(match.group(3)) <= (self.node.end_lineno or self.node.lineno):
                line = int(match.group(3))
        if line is None or within is not None and \
                not within.first_line <= line <= within.last_line:
            return None
        return line

    @classmethod
    def for_function(cls, jit) -> "Segmented":
        """The split of a jitted function janus could not make one graph of."""
        fn = jit.fn
        split = cls(fn, dict(jit.options), jit.stats, jit)
        line = split.locate(jit.last_trace_error, fn.__code__.co_name)
        if line is not None and line != fn.__code__.co_firstlineno:
            compound = _compound_at(split.node.body, line) or \
                _compound_around(split.node.body, line)
            if compound is not None:  # open it: the failing line may do in a part of it
                split.open(compound.lineno)
            else:
                split.add_break(line, reason_of(jit.last_trace_error))
        elif jit.unsupported is not None or jit.last_trace_error is not None:
            # failed somewhere janus cannot point at (a callee janus refused): a segment
            # of the whole body would fail the same way
            split.whole_failed = reason_of(jit.unsupported or jit.last_trace_error)
        return split

    def summary(self) -> dict:
        """The split as a JSON-able dict (see janus/fallback/split_report.py)."""
        with self._lock:
            return split_report.summarize(self)

    def report(self) -> list[str]:
        """Lines for explain: the breaks, the segments, what runs inline and why."""
        return split_report.lines(self.summary())
