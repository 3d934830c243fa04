"""Outlining: split a function at its graph breaks into Python glue and graph segments.

A *break* is a statement janus cannot put in a graph (`.numpy()`, host randomness, an
environment step...), known by its line. Maximal stretches of sibling statements without
a break, and without a `return`/`break`/`continue`/`yield` leaving the stretch, become
nested functions of their own; the function keeps the breaks and calls the stretches:

    def step(model, x):                        def step(model, x):
        h = model(x)                               h, = janus_segs[0](model, x)
        a = np.random.choice(2, p=h.numpy())       a = np.random.choice(2, p=h.numpy())
        for t in range(3):                         for t in range(3):
            y = model(h) * a                           y, = janus_segs[1](a, h, model)
            obs = env.step(y.numpy())      ->          obs = env.step(y.numpy())
        return tf.reduce_sum(y)                    janus_return, = janus_segs[2](y)
                                                   return janus_return
    segment 0: def step__segment_0(model, x):
                   h = model(x)
                   return (h,)
    ...

Inputs are the local names a stretch reads before binding them (they must be bound for
sure before it, else the stretch stays Python); outputs are the names it binds that the
function may read afterwards. Compound statements holding a break stay Python and their
bodies are split the same way. A gradient tape never crosses a boundary: a `with` whose
tape is used after a later break stays Python (its body split; the segments inside run
under the eager tape, which records them), and statements using a tape bound outside
their stretch stay Python. Stretches without work (no call other than builtins, numpy
and math), stretches of fewer than `TINY_OPS` operations, and those listed inline (their
graphs did not pay) stay Python: a graph call would cost more than it saves. In a loop
kept Python, an `if` that leaves it keeps only the leaving Python: its test and the
statements after it join the segment before it (janus/transform/leave.py).
"""
from __future__ import annotations

import builtins
import copy
import dataclasses
import math
import types

import gast
import numpy as np

from janus.transform import breaks as breaks_mod
from janus.transform import leave, liveness, scope
from janus.transform.breaks import static_breaks  # noqa: F401 - re-exported

SEGMENTS = "janus_segs"
"""The name under which the split function sees its segments (a list; renamed if the
function uses it: `Split.segments_name`)."""
TINY_OPS = 8
"""A stretch of fewer operations than this (TensorFlow calls and operators, no loop, no
call of user code) stays Python: a graph call costs more than it saves."""

_ESCAPES = (gast.Return, gast.Yield, gast.YieldFrom, gast.Await)
COMPOUND = _COMPOUND = (gast.For, gast.AsyncFor, gast.While, gast.If, gast.With, gast.AsyncWith, gast.Try)
_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_HOST_MODULES = (np, math)


@dataclasses.dataclass
class Stretch:
    """One outlined stretch: `def <name>(*inputs): <body>; return tuple(outputs)`."""

    index: int
    name: str
    inputs: list[str]
    outputs: list[str]
    body: list
    first_line: int
    last_line: int
    appended: frozenset = frozenset()  # inputs it only appends to (`xs.append(v)`)
    in_loop: bool = False  # inside a loop of the function (called many times per call)

    def function(self, template: gast.FunctionDef) -> gast.FunctionDef:
        """The segment as a function definition (located at the user's lines)."""
        args = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                for n in self.inputs]
        ret = gast.Return(value=gast.Tuple(elts=[_load(n) for n in self.outputs],
                                           ctx=gast.Load()))
        _locate(ret, self.last_line)
        node = gast.FunctionDef(
            name=self.name, args=gast.arguments(args=args, posonlyargs=[], vararg=None,
                                                kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                defaults=[]),
            body=copy.deepcopy(self.body) + [ret], decorator_list=[], returns=None,
            type_comment=None, type_params=[])
        _locate(node, self.first_line)
        return node


@dataclasses.dataclass
class Split:
    """The function with its stretches outlined, and why statements stayed Python."""

    function: gast.FunctionDef
    stretches: list[Stretch]
    python: list[tuple[int, str]]  # (line, why it stayed Python), for explain
    segments_name: str = SEGMENTS


def tape_names(fn: gast.FunctionDef) -> set[str]:
    """Names bound to a `tf.GradientTape` (`with tf.GradientTape() as t`, `t = ...Tape()`)."""
    def is_tape(expr):
        return isinstance(expr, gast.Call) and \
            getattr(expr.func, "attr", getattr(expr.func, "id", "")) == "GradientTape"
    names = set()
    for node in gast.walk(fn):
        if isinstance(node, (gast.With, gast.AsyncWith)):
            for item in node.items:
                if is_tape(item.context_expr) and isinstance(item.optional_vars, gast.Name):
                    names.add(item.optional_vars.id)
        elif isinstance(node, gast.Assign) and is_tape(node.value):
            names |= {t.id for t in node.targets if isinstance(t, gast.Name)}
    return names


def split(fn: gast.FunctionDef, breaks: set[int], env: dict,
          opened: frozenset = frozenset(), inline: frozenset = frozenset()) -> Split:
    """Outline the stretches of `fn` (a parsed function; not modified) around the statements
    at lines `breaks`; `env` (the function's globals) tells builtins/numpy calls apart;
    compound statements starting at lines `opened` stay Python (their bodies are split);
    stretches spanning `(first, last)` lines in `inline` stay Python (their graphs did not
    pay), and so do tiny stretches (`TINY_OPS`)."""
    return _Splitter(fn, breaks, env, opened, inline).run()


class _Splitter:
    def __init__(self, fn, breaks, env, opened, inline=frozenset()):
        self.fn = copy.deepcopy(fn)
        self.breaks = set(breaks)
        self.opened = set(opened)
        self.inline = set(inline)
        self.env = env
        self.locals = scope.local_names(self.fn)
        self.tapes = tape_names(self.fn) & self.locals
        self.forced: dict[int, str] = {}  # id(stmt) -> why it stays Python
        self.taken = {n.id for n in gast.walk(self.fn) if isinstance(n, gast.Name)}
        self.ret = _fresh("janus_return", self.taken)
        self.jump = _fresh("janus_jump", self.taken)
        self.segs = _fresh(SEGMENTS, self.taken)
        self.locals |= {self.ret, self.jump}
        self.in_loop = False
        self._reads_after: dict[int, set[str]] = {}
        # locals a nested def/lambda reads (closure cells: a segment's copy of one would
        # not be what the nested function sees), and those a nested def rebinds (nonlocal)
        nested = [n for n in gast.walk(self.fn) if isinstance(n, _NESTED) and n is not self.fn]
        self.cells = set().union(*(self._free_locals(n) for n in nested)) if nested else set()
        self.cells |= {name for n in nested for m in gast.walk(n)
                       if isinstance(m, gast.Nonlocal) for name in m.names}
        self.rebound_cells = {name for n in nested for m in gast.walk(n)
                              if isinstance(m, gast.Nonlocal) for name in m.names}

    def run(self) -> Split:
        self.fn.body = self._returns_outlined(self.fn.body)
        self.fn.body = self._leaves_rewritten(self.fn.body, in_loop=False)
        for _ in range(64):  # each round forces at least one more statement to Python
            self.stretches, self.python = [], []
            params = _params(self.fn)
            self.caught = 0
            body = self._block(self.fn.body, set(params), after=set(), in_loop=False)
            if not self._tape_conflicts():
                break
        out = copy.copy(self.fn)
        out.body = body
        return Split(out, self.stretches, sorted(set(self.python)), self.segs)

    # -- `return e` -> `janus_return = e; return janus_return`
    def _returns_outlined(self, stmts):
        new = []
        for stmt in stmts:
            if isinstance(stmt, gast.Return) and stmt.value is not None and \
                    not isinstance(stmt.value, (gast.Name, gast.Constant)):
                assign = gast.Assign(targets=[_store(self.ret)], value=stmt.value,
                                     type_comment=None)
                gast.copy_location(assign, stmt)
                ret = gast.Return(value=_load(self.ret))
                gast.copy_location(ret, stmt)
                new += [assign, ret]
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, self._returns_outlined(getattr(stmt, field)))
            if isinstance(stmt, gast.Try):
                for handler in stmt.handlers:
                    handler.body = self._returns_outlined(handler.body)
            new.append(stmt)
        return new

    # -- `if t: B; break` + C in a loop kept Python -> C in the segment (transform/leave.py)
    def _leaves_rewritten(self, stmts, in_loop):
        """`stmts` (a block this split keeps Python) with the last `if` leaving each loop
        kept Python rewritten so that the statements after it join the segment before it."""
        for stmt in stmts:
            if not isinstance(stmt, _COMPOUND):
                continue
            self.in_loop = in_loop
            if self._why_python(stmt) is None:
                continue  # in a segment as a whole: nothing to split inside
            loop = isinstance(stmt, (gast.For, gast.AsyncFor, gast.While))
            stmt.body = self._leaves_rewritten(stmt.body, in_loop or loop)
            if loop:
                stmt.body = self._leave_rewritten(stmt.body)
            for field in ("orelse", "finalbody"):
                if getattr(stmt, field, None):
                    setattr(stmt, field, self._leaves_rewritten(getattr(stmt, field), in_loop))
            for handler in getattr(stmt, "handlers", []):
                handler.body = self._leaves_rewritten(handler.body, in_loop)
        return stmts

    def _leave_rewritten(self, body):
        i = leave.last_leaving(body)
        self.in_loop = True
        if i is None or self._why_python(body[i]) is None:
            return body  # (an `if` not kept Python is in a segment with what follows)
        rest = body[i].orelse + body[i + 1:]
        if rest[0].lineno in self.opened or not self._has_work(rest):
            return body  # (a trace of the rewritten `if` failed: as it was)
        flag = _fresh(leave.FLAG, self.taken)
        new = leave.rewrite(body, i, flag)
        if any(self._why_python(s) for s in new[i:i + 2]):
            return body  # the test or what follows cannot be in a segment: no gain
        self.locals.add(flag)
        self.forced[id(new[i + 2])] = "leaves the loop (its test and what follows it are " \
            "in the segment before it)"
        return new

    # -- classifying statements
    def _why_python(self, stmt) -> str | None:
        """Why `stmt` as a whole cannot be in a segment (None: it can)."""
        if id(stmt) in self.forced:
            return self.forced[id(stmt)]
        first, last = stmt.lineno, getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
        if isinstance(stmt, _COMPOUND) and first in self.opened:
            return "a trace of it failed inside"
        if any(first <= line <= last for line in self.breaks) and \
                not getattr(stmt, "janus_hoisted", False):  # (host_reads.py: no read left)
            return "graph break"
        for node in _own_nodes(stmt):
            if isinstance(node, _ESCAPES):
                return "leaves the function (return/yield)"
            if isinstance(node, (gast.Global, gast.Nonlocal, gast.Delete)):
                return "declares or deletes names"
            if isinstance(node, gast.Try):
                return "try statement"
            if isinstance(node, _NESTED) and self._free_locals(node):
                return "defines a function over the function's local variables"
        if _loose_jumps(stmt) and not self.in_loop:
            return "break/continue of an enclosing loop"
        if isinstance(stmt, (gast.For, gast.AsyncFor, gast.While)) and \
                not self._has_work([stmt]):
            return "host code (no call a graph would speed up)"
        return None

    def _free_locals(self, node) -> set[str]:
        return liveness.reads(node) & self.locals

    def _tf_context(self, expr) -> bool:
        """A TensorFlow context manager (`tf.GradientTape()`, `tf.device(...)`): it never
        swallows an exception."""
        root = expr.func if isinstance(expr, gast.Call) else expr
        while isinstance(root, gast.Attribute):
            root = root.value
        value = self.env.get(root.id) if isinstance(root, gast.Name) and \
            root.id not in self.locals else None
        return isinstance(value, types.ModuleType) and value.__name__.split(".")[0] == "tensorflow"

    def _has_work(self, stmts) -> bool:
        for node in gast.walk(gast.Module(body=stmts, type_ignores=[])):
            if isinstance(node, gast.Call) and not self._host_call(node.func):
                return True
        return False

    def _host_call(self, func) -> bool:
        """A call of a builtin or of numpy/math (host work a graph does not speed up)."""
        root = func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or root.id in self.locals:
            return False
        value = self.env.get(root.id, getattr(builtins, root.id, None))
        if root is func:
            return isinstance(value, (types.BuiltinFunctionType, type)) and \
                getattr(builtins, root.id, None) is value and value is not type
        return isinstance(value, types.ModuleType) and \
            any(value is m or value.__name__.startswith(m.__name__ + ".") for m in _HOST_MODULES)

    def _only_optimizer_steps(self, stmts) -> bool:
        """Whether the only calls `stmts` make (besides builtins/numpy) are
        `optimizer.apply_gradients(...)`: a graph of its own would trace the update again."""
        calls = [n for n in scope.walk_own_scope(stmts)
                 if isinstance(n, gast.Call) and not self._host_call(n.func)]
        return bool(calls) and all(isinstance(c.func, gast.Attribute) and
                                   c.func.attr == "apply_gradients" for c in calls)

    # -- splitting a block
    def _block(self, stmts, defined, after, in_loop):
        """`stmts` with stretches outlined; `defined`: names surely bound before them;
        `after`: names that may be read after the block (incl. later loop iterations)."""
        out, run, run_defined = [], [], defined
        later_reads = [set() for _ in stmts]
        acc = set(after)
        for i in range(len(stmts) - 1, -1, -1):
            later_reads[i] = set(acc)
            acc |= liveness.reads(stmts[i])
        for i, stmt in enumerate(stmts):
            self.in_loop = in_loop
            why = self._why_python(stmt)
            if why is None:
                if not run:
                    run_defined = defined
                run.append((stmt, later_reads[i]))
            else:
                out += self._flush(run, run_defined, in_loop)
                run = []
                out.append(self._python(stmt, why, defined, later_reads[i], in_loop))
            defined = liveness._after(stmt, defined)
        out += self._flush(run, run_defined, in_loop)
        return out

    def _python(self, stmt, why, defined, after, in_loop):
        self.python.append((stmt.lineno, why))
        if not isinstance(stmt, _COMPOUND):
            return stmt
        stmt = copy.copy(stmt)
        loop = isinstance(stmt, (gast.For, gast.AsyncFor, gast.While))
        body_after = after
        if loop:  # what the next iteration reads before binding it, and the loop's test
            body_after = after | liveness.inputs(stmt.body, set()) | \
                liveness.reads(getattr(stmt, "test", []))
        inner = defined
        if isinstance(stmt, (gast.For, gast.AsyncFor)):
            inner = defined | liveness.targets(stmt.target)
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            inner = defined | set().union(*(liveness.targets(i.optional_vars)
                                            for i in stmt.items if i.optional_vars is not None))
        catches = isinstance(stmt, gast.Try) or isinstance(stmt, (gast.With, gast.AsyncWith)) \
            and not all(self._tf_context(i.context_expr) for i in stmt.items)
        self.caught += catches
        try:
            stmt.body = self._block(stmt.body, inner, body_after, in_loop or loop)
        finally:
            self.caught -= catches
        if getattr(stmt, "orelse", None):
            stmt.orelse = self._block(stmt.orelse, defined, after, in_loop)
        if isinstance(stmt, gast.Try):
            stmt.handlers = [copy.copy(h) for h in stmt.handlers]
            for h in stmt.handlers:
                h.body = self._block(h.body, defined, after, in_loop)
            stmt.finalbody = self._block(stmt.finalbody, defined, after, in_loop)
        return stmt

    def _flush(self, run, defined, in_loop):
        if not run:
            return []
        stmts = [s for s, _ in run]
        after = run[-1][1]
        if not self._has_work(stmts):
            return stmts
        span = (stmts[0].lineno,
                max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in stmts))
        if span in self.inline:
            for s in stmts:
                self.python.append((s.lineno, "its segment's graph did not pay"))
            return stmts
        if self._only_optimizer_steps(stmts):
            for s in stmts:
                self.python.append((s.lineno, "an optimizer step only (the Python between "
                                    "segments runs it as one graph)"))
            return stmts
        ops = breaks_mod.op_count(stmts, self.env, self.locals, self._host_call)
        if ops is not None and ops < TINY_OPS:
            for s in stmts:
                self.python.append((s.lineno, f"too small for a graph ({ops} operations)"))
            return stmts
        original, jumps = stmts, in_loop and any(_loose_jumps(s) for s in stmts)
        if jumps:  # `break`/`continue` of the Python loop: a flag the call site tests
            stmts = [_assign(self.jump, 0, stmts[0])] + _jumps_to_flag(stmts, self.jump)
        if self.caught:  # an exception leaving a segment would lose its local bindings
            for s in original:
                self.python.append((s.lineno, "inside a try or a with that may catch"))
            return original
        needed = liveness.inputs(stmts, set()) & self.locals
        written = liveness.bound(stmts) & self.locals
        if written & self.cells or needed & self.rebound_cells:
            # binding a closure cell (or reading one a nested def rebinds): the segment
            # would change or read its own copy, not the cell the nested function uses
            for s in original:
                self.python.append((s.lineno, "binds or reads a variable a nested function "
                                    "shares (a closure cell)"))
            return original
        reads_later = after | (needed if in_loop else set())  # (the next iteration's)
        outputs = written & reads_later | ({self.jump} if jumps else set())
        needed |= outputs - liveness.surely_bound(stmts, set())
        if needed - defined:  # Python might not have them bound here: keep it Python
            for s in original:
                self.python.append((s.lineno, "reads a name that may be unbound here"))
            return original
        index = len(self.stretches)
        stretch = Stretch(index, f"{self.fn.name}__segment_{index}", sorted(needed),
                          sorted(outputs), stmts, stmts[0].lineno,
                          max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in stmts),
                          appended_only(stmts, needed - written), in_loop)
        self.stretches.append(stretch)
        call = gast.Call(func=gast.Subscript(value=_load(self.segs),
                                             slice=gast.Constant(value=index, kind=None),
                                             ctx=gast.Load()),
                         args=[_load(n) for n in stretch.inputs], keywords=[])
        if stretch.outputs:
            node = gast.Assign(targets=[gast.Tuple(elts=[_store(n) for n in stretch.outputs],
                                                   ctx=gast.Store())], value=call,
                               type_comment=None)
        else:
            node = gast.Expr(value=call)
        _locate(node, stretch.first_line)
        if not jumps:
            return [node]
        tests = []
        kinds = {type(n) for s in original for n in gast.walk(s)}
        for code, jump in ((1, gast.Break()), (2, gast.Continue())):
            if type(jump) not in kinds:
                continue
            test = gast.Compare(left=_load(self.jump), ops=[gast.Eq()],
                                comparators=[gast.Constant(value=code, kind=None)])
            tests.append(gast.If(test=test, body=[jump], orelse=[]))
        for t in tests:
            _locate(t, stretch.last_line)
        return [node] + tests

    def _tape_conflicts(self) -> bool:
        """Force to Python what would hand a tape across a boundary; True if anything was."""
        changed = False
        for stretch in self.stretches:
            crossing = (set(stretch.inputs) | set(stretch.outputs)) & self.tapes
            if not crossing:
                continue
            for stmt in stretch.body:
                if id(stmt) in self.forced:
                    continue
                if isinstance(stmt, (gast.With, gast.AsyncWith)) and \
                        liveness.bound([stmt]) & crossing & set(stretch.outputs):
                    self.forced[id(stmt)] = "gradient tape used after a break"
                    changed = True
                elif liveness.reads(stmt) & crossing & set(stretch.inputs):
                    self.forced[id(stmt)] = "uses a gradient tape recorded outside the segment"
                    changed = True
            if not changed:  # the tape is written plainly (`t = tf.GradientTape()`)
                for stmt in stretch.body:
                    if liveness.bound([stmt]) & crossing and id(stmt) not in self.forced:
                        self.forced[id(stmt)] = "creates a gradient tape used outside the segment"
                        changed = True
        return changed


_APPENDS = frozenset(("append", "extend"))


def appended_only(stmts: list, names: set[str]) -> frozenset:
    """Those of `names` that `stmts` only append to: every use is `name.append(...)` or
    `name.extend(...)` (and no nested function sees it). A segment handed such a list
    neither reads its items nor its length, so its length is no assumption of the graph."""
    uses: dict[str, int] = {}
    appends: dict[str, int] = {}
    for node in gast.walk(gast.Module(body=stmts, type_ignores=[])):
        if isinstance(node, gast.Name) and node.id in names:
            uses[node.id] = uses.get(node.id, 0) + 1
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                node.func.attr in _APPENDS and isinstance(node.func.value, gast.Name) and \
                node.func.value.id in names and len(node.args) == 1 and not node.keywords:
            appends[node.func.value.id] = appends.get(node.func.value.id, 0) + 1
    return frozenset(n for n, k in appends.items() if uses.get(n) == k)


def _assign(name: str, value: int, where) -> gast.Assign:
    node = gast.Assign(targets=[_store(name)], value=gast.Constant(value=value, kind=None),
                       type_comment=None)
    gast.copy_location(node, where)
    _locate(node, where.lineno)
    return node


def _jumps_to_flag(stmts: list, flag: str) -> list:
    """`stmts` with their loose `break`/`continue` setting `flag` to 1/2 instead; what
    follows a statement that may jump runs under `if flag == 0:`."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, (gast.Break, gast.Continue)):
            out.append(_assign(flag, 1 if isinstance(stmt, gast.Break) else 2, stmt))
            return out  # the rest of the block is dead code
        if not _loose_jumps(stmt):
            out.append(stmt)
            continue
        stmt = copy.copy(stmt)
        if isinstance(stmt, (gast.For, gast.AsyncFor, gast.While)):
            stmt.orelse = _jumps_to_flag(stmt.orelse, flag)
        else:
            stmt.body = _jumps_to_flag(stmt.body, flag)
            if getattr(stmt, "orelse", None):
                stmt.orelse = _jumps_to_flag(stmt.orelse, flag)
        out.append(stmt)
        rest = stmts[i + 1:]
        if rest:
            test = gast.Compare(left=_load(flag), ops=[gast.Eq()],
                                comparators=[gast.Constant(value=0, kind=None)])
            guard = gast.If(test=test, body=_jumps_to_flag(rest, flag), orelse=[])
            _locate(guard, rest[0].lineno)
            out.append(guard)
        return out
    return out


def _own_nodes(stmt):
    """Nodes of `stmt` outside nested function/class bodies (their headers included)."""
    yield from scope.walk_own_scope([stmt])


def leaves_loop(stmt) -> bool:
    """Whether `stmt` (of a stretch) holds a break/continue of the loop around it (made a
    `janus_jump` flag by `_jumps_to_flag`)."""
    return _loose_jumps(stmt) or any(
        isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and
        n.id.startswith("janus_jump") for n in gast.walk(stmt))


def _loose_jumps(stmt) -> bool:
    """Whether `stmt` holds a break/continue that leaves it (belongs to an outer loop)."""
    if isinstance(stmt, (gast.Break, gast.Continue)):
        return True
    if isinstance(stmt, (gast.For, gast.AsyncFor, gast.While)):
        return any(_loose_jumps(s) for s in stmt.orelse)
    if isinstance(stmt, _NESTED):
        return False
    return any(_loose_jumps(s) for field in ("body", "orelse", "finalbody")
               for s in getattr(stmt, field, None) or []) or \
        any(_loose_jumps(s) for h in getattr(stmt, "handlers", []) for s in h.body)


def _params(fn: gast.FunctionDef) -> list[str]:
    args = fn.args
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names + [a.id for a in (args.vararg, args.kwarg) if a is not None]


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def _load(name: str) -> gast.Name:
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _store(name: str) -> gast.Name:
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def _locate(node, line: int) -> None:
    for child in gast.walk(node):
        if "lineno" in child._attributes and getattr(child, "lineno", None) is None:
            child.lineno, child.col_offset = line, 0
            child.end_lineno, child.end_col_offset = line, 0
