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
there. Host randomness and clocks are breaks: they run in Python, in program order
(numpy draws a graph makes exactly are not: janus/graphgen/host_draws.py).

Choosing (janus/fallback/trial.py): a segment first runs plainly (timed), then through
its jit, and is kept as a graph only if it pays; one that does not runs inline: the
function is rebuilt without it (no call layer). A segment whose trace fails at one of its
lines makes that line a break: the function is split again before its next call (a
bounded number of times). Graphs its segments make and do not reuse are bounded for the
whole function, over all its splits (janus/fallback/churn.py).
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import re
import threading
import types

import gast
import tensorflow as tf

from janus import source as source_mod
from janus.config import config as global_config
from janus.errors import ConversionError, frames_of
from janus.graphgen.defaults import follow_defaults
from janus.graphgen.plan import Plan
from janus.recursion import limits
from janus.stats import Stats
from janus.transform import breaks, host_reads, leave, liveness, scope, segments, user_frames
from janus.fallback import churn, settled, split_report, whole_trial
from janus.fallback.mixed import MixedRunner
from janus.fallback.trial import Segment, compound_around, compound_at, reason_of
from janus.transform.pipeline import convert, drop_defaults_and_annotations, fill_locations
from janus.transform.segments import Split

MAX_SPLITS = 8
"""Times a function is split again because a segment found a new break."""
MAX_INLINED = 32
"""Times a function is rebuilt to run a segment that does not pay inline."""
make_jit = None
"""The JitFunction class, set by janus.function (which imports this module)."""


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


def _leave_branches(plain: types.FunctionType, stretch: segments.Stretch) -> frozenset:
    """The `if flag: pass else: C` of `stretch` (janus/transform/leave.py) as branches its
    jit builds as tf.cond from its first graph on: the flag flips between calls."""
    flags = {getattr(n, leave.GUARD) for n in gast.walk(gast.Module(body=stretch.body,
                                                                     type_ignores=[]))
             if leave.is_guard(n)}
    if not flags:
        return frozenset()
    try:
        converted = convert(plain)
    except ConversionError:
        return frozenset()
    return frozenset((converted.key, site.id) for site in converted.sites.sites
                     if site.kind == "if" and site.text in flags)


_LOCATED = re.compile(r"(.+?) \((.+):(\d+)\): ")  # ("f.<segment 3-9> (file:7): ...")
_COMPILED_NAME = "janus__split_fn"


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
        self.budget = churn.Budget(self._max_unreused, self._warn_churn)
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
        self.unhoisted: set[int] = set()  # breaks whose moved-out work did not trace
        self.pending_unhoist: set[int] = set()
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
        self.whole = whole_trial.WholeTrial()  # whether the split pays against plain

    def _max_unreused(self) -> int:
        return (self.jit.config if self.jit is not None else global_config).max_specializations

    def _warn_churn(self, message: str) -> None:
        if self.jit is not None:
            self.jit._warn_once("split churn", f"{self.info.qualname}: {message}")

    def all_segments(self) -> list[Segment]:
        """Every segment made so far, those of earlier splits too (`self.segments` holds
        the current split's): a segment dropped to run inline is only here."""
        with self._lock:
            return list(self._segments.values())

    def runs_as_it_is(self) -> bool:
        """Whether its calls run the function itself from now on: nothing is left to split
        again or to run as a graph (fallback/settled.py)."""
        with self._lock:
            if self.whole.state == "plain":
                return True
            return self.outer is not None and not self.segments and not (
                self.pending or self.pending_open or self.pending_unhoist or
                self.pending_inline) and settled.runs_as_it_is(self.runner, self.fn)

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

    def break_at(self, line: int, reason: str) -> None:
        """What a segment found at `line` (a failed trace, a varying list) keeps it out of
        segments from the next split on: a break, or if it is one already, one that keeps
        the tensor work transform/host_reads.py moved out of it."""
        with self._lock:
            if line in self.breaks and line not in self.unhoisted:  # (host_reads.py)
                self.pending_unhoist.add(line)
            else:
                self.add_break(line, reason)

    def __call__(self, *args, **kwargs):
        with self._lock:  # (threads: one builds, the others wait for its runner)
            runner = self._prepare(args, kwargs)
            follow_defaults(self.outer, self.fn)  # (rebound since it was built: F273)
            kind, before = self._trial_turn()
        if before is None:  # (the user's Python runs with plain Python's room: F351)
            if kind != "kept":
                return limits.plain_call(runner, args, kwargs)
            start = whole_trial.clock()  # (its cost may drift: whole_trial.py `watch`)
            result = limits.plain_call(runner, args, kwargs)
            self._watched(whole_trial.clock() - start)
            return result
        start = whole_trial.clock()
        result = limits.plain_call(self.fn if kind == "plain" else runner, args, kwargs)
        seconds = whole_trial.clock() - start
        with self._lock:
            self._trial_ran(kind, seconds, before)
        return result

    # -- whether the split pays as a whole (fallback/whole_trial.py)
    def _trial_turn(self) -> tuple:
        """(how this call runs in the split's trial — "plain", "split" or None —, janus's
        work so far), or (None or "kept": a kept split, timed on, None) when it is not
        tried."""
        if self.whole.state in ("kept", "plain") or self.runner is self.fn:
            return ("kept" if self.whole.state == "kept" and self.runner is not self.fn
                    else None), None
        try:
            mixed = isinstance(self.runner, MixedRunner) and self.runner.pays and \
                not self.runner.plain
            may_try = (mixed or any(s.state in ("graph", "kept") for s in self.segments)) and \
                (self.jit is None or self.jit.profile.collective_strategy is None) and \
                not tf.distribute.has_strategy()
            decided = all(s.state in ("kept", "eager") for s in self.segments)
            return self.whole.turn(may_try, decided), self._work()
        except Exception as exc:  # noqa: BLE001 - janus's: the call runs split
            self._trial_failed(exc)
            return None, None

    def _work(self) -> tuple:
        """What changes when janus traces or is about to rebuild: a split call that changed
        it paid a one-time cost. (A profiled call is not one: a segment that profiles
        call after call costs that every call.)"""
        jits = [s.jit for s in self._segments.values()]
        return (sum(j.stats.generations + j.stats.generation_failures for j in jits),
                self.runner.work() if isinstance(self.runner, MixedRunner) else (),
                tuple(s.state for s in self.segments),
                bool(self.pending or self.pending_open or self.pending_unhoist or
                     self.pending_inline))

    def _trial_ran(self, kind, seconds: float, before: tuple) -> None:
        try:
            if self.whole.ran(kind, seconds, self._work() != before) == "plain":
                for seg in self._segments.values():
                    seg.jit.discard_graphs()
                self.segments, self.runner = [], self.fn
                self.pending, self.pending_open = {}, set()
                self.pending_unhoist, self.pending_inline = set(), set()
        except Exception as exc:  # noqa: BLE001 - janus's: the result stands
            self._trial_failed(exc)

    def _watched(self, seconds: float) -> None:
        with self._lock:
            try:
                self.whole.watch(seconds)
            except Exception as exc:  # noqa: BLE001 - janus's: the result stands
                self._trial_failed(exc)

    def _trial_failed(self, exc: Exception) -> None:
        """janus's own bookkeeping of the split's trial failed: the split stays as it is."""
        self.whole.state = "kept"
        self.whole.why = f"janus internal error: {type(exc).__name__}"
        if self.jit is not None:
            self.jit.report_internal("keeping a split function's trial", exc, give_up=False)

    def _prepare(self, args, kwargs):
        """Split again if a segment asked for it (or for the first time); the runner."""
        if self.whole.state == "plain":  # (the split does not pay: the function as it is)
            self.stats.segmented_calls += 1
            return self.fn
        if not self.calls_seen:  # the first call's arguments show more breaks (known
            self.calls_seen = True  # before the first build: not a split again)
            self._breaks_from_arguments(args, kwargs)
            if self.outer is None:
                for line, why in self.pending.items():
                    self.breaks[line] = Break(line, why, self.info.line(line))
                self.pending = {}
        rebuild = False
        if (self.pending or self.pending_open or self.pending_unhoist) and \
                self.splits < MAX_SPLITS:
            for line, why in self.pending.items():
                self.breaks[line] = Break(line, why, self.info.line(line))
            self.opened |= self.pending_open
            self.unhoisted |= self.pending_unhoist
            self.pending, self.pending_open, self.pending_unhoist = {}, set(), set()
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
        node = host_reads.hoist(self.node, set(self.breaks) - self.unhoisted,
                                self.fn.__globals__)
        split = segments.split(node, set(self.breaks), self.fn.__globals__,
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
            split = segments.split(node, set(self.breaks), self.fn.__globals__,
                                   frozenset(self.opened), frozenset(self.inline))
        self.split = split
        self.whole.rebuilt()
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
        return MixedRunner(jit, converted, "running split at graph breaks", fn, tried=False)

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
            seg.jit._own_frames = 1  # (its lines run in the function's frame plainly)
            seg.jit.plan_seed = Plan(append_only=frozenset(
                f"args[{i}]" for i in sorted(seg.appended)),
                general_branches=_leave_branches(plain, stretch))
        seg.stretch = stretch
        return seg

    def _compile_outer(self, split: Split) -> types.FunctionType:
        outer = copy.deepcopy(split.function)
        drop_defaults_and_annotations(outer)
        fn = self._compile(outer, {split.segments_name: self.segments})
        fn.__defaults__ = self.fn.__defaults__
        fn.__kwdefaults__ = self.fn.__kwdefaults__
        fn.__janus_source__ = (split.function, self.info)
        fn.__qualname__ = self.info.qualname
        user_frames.mark_own_frame(fn.__code__)  # (a warning's `stacklevel` counts it)
        return fn

    def _compile(self, node: gast.FunctionDef, extra: dict) -> types.FunctionType:
        """`node` compiled at the user's lines, closing over the original's cells (and
        `extra` names, as cells of their own)."""
        freevars = list(self.fn.__code__.co_freevars)
        params = list(extra) + freevars
        name, node = node.name, copy.copy(node)
        # (compiled under a name no user code uses: the function's own name inside it,
        # a recursive call's, must stay a global, not the factory's local)
        node.name = _COMPILED_NAME
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
        exec(source_mod.compile_tree(tree, self.info.filename), {}, namespace)
        inner = namespace["janus__factory"](*([None] * len(params))).__code__
        # (named as the user's function in its frames: a logging record's funcName, a
        # traceback's line; its own `__name__` stays the segment's: F231)
        inner = inner.replace(co_name=self.fn.__code__.co_name)
        cells = []
        closure = self.fn.__closure__ or ()
        for name in inner.co_freevars:
            if name in extra:
                cells.append(types.CellType(extra[name]))
            else:
                cells.append(closure[freevars.index(name)])
        fn = types.FunctionType(inner, self.fn.__globals__, name, None, tuple(cells))
        fn.__module__ = self.fn.__module__
        return fn

    # -- finding the line a trace failed at
    def locate(self, exc: BaseException | None, name: str, within=None) -> int | None:
        """The line of the code named `name` (the function's or a segment's, within the
        lines of `within` if given) where `exc` (a failed trace) happened."""
        if exc is None:
            return None
        line = None
        for frame in frames_of(exc):
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
            compound = compound_at(split.node.body, line) or \
                compound_around(split.node.body, line)
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
