"""Host reads: the tensor work inside a graph-break statement moves out of it.

A statement that reads a tensor's value on the host (`.numpy()`, `float(t)`, `int(t)`,
`bool(t)`) is a graph break, and so, until now, was all the tensor work in it: the
model call in `x = model(h).numpy()` ran op by op. This pass binds the read tensor to a
fresh local in a statement of its own, which a segment can hold, just before the
break, which keeps only the read:

    old_logp = log_probs(policy(obs), a).numpy()   ->   janus_read_0 = log_probs(policy(obs), a)
    values = value(obs).numpy()[:, 0]                   janus_read_1 = value(obs)
                                                        old_logp = janus_read_0.numpy()
                                                        values = janus_read_1.numpy()[:, 0]

A read moves out only when nothing in its statement runs before it (no call evaluated
earlier, no short-circuit or conditional part): the statement's order of effects is
Python's. A moved-out statement then moves up past the reads just before it when it
does not read what they bind (the reads only convert values: no effects), so that
consecutive breaks' tensor work forms one stretch (above: one segment for both model
calls). Statements inside `try` or a `with` that may catch an exception are left as
they are. Moved-out statements carry `janus_hoisted` (the splitter puts them in
segments although their line is a break) and their statement's line; `lines` says
which breaks to treat (janus/fallback/segmented.py leaves out a line whose moved-out
part failed to trace).
"""
from __future__ import annotations

import copy
import types

import gast

from janus import user_attributes
from janus.transform import liveness, scope

PREFIX = "janus_read"
_CONVERSIONS = frozenset({"float", "int", "bool"})
_HOST_MODULES = frozenset({"numpy", "math", "random", "time", "os", "sys", "builtins"})
_LEAVES = (gast.Name, gast.Constant)


def hoist(fn: gast.FunctionDef, lines: set[int], env: dict) -> gast.FunctionDef:
    """A copy of `fn` with the tensor work of the statements at `lines` moved out (see
    the module docstring); `env` (the function's globals) tells a shadowed `float`."""
    out = copy.deepcopy(fn)
    taken = {n.id for n in gast.walk(out) if isinstance(n, gast.Name)}
    local_names = scope.local_names(out)
    shadowed = {name for name in _CONVERSIONS if name in env or name in local_names}
    _Hoister(lines, taken, _CONVERSIONS - shadowed, env, local_names).block(out, "body")
    return out


class _Hoister:
    def __init__(self, lines: set[int], taken: set[str], conversions: frozenset, env: dict,
                 local_names: set[str]):
        self.lines, self.taken, self.conversions = lines, taken, conversions
        self.env, self.local_names = env, local_names
        self.count = 0

    def block(self, owner, field: str) -> None:
        new: list = []
        for stmt in getattr(owner, field):
            if isinstance(stmt, gast.Try) or isinstance(stmt, (gast.With, gast.AsyncWith)) \
                    and not _tape_only(stmt):  # (it may catch what a moved-out part raises)
                new.append(stmt)
                continue
            if not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                for name in ("body", "orelse"):
                    if isinstance(getattr(stmt, name, None), list):
                        self.block(stmt, name)
            if stmt.lineno in self.lines:
                for moved in self._statement(stmt):
                    _bubble_up(new, moved)
            new.append(stmt)
        setattr(owner, field, new)

    def _statement(self, stmt) -> list:
        """The statements moved out of `stmt` (rewritten in place), in order."""
        if isinstance(stmt, (gast.Assign, gast.Expr)) or \
                isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
            root = stmt.value
        else:
            return []
        moved = []
        while True:
            found = _first_read(root, self.conversions)
            if found is None or any(self._host_call(n) for n in gast.walk(found[1])):
                return moved
            read, tensor = found
            name = self._fresh()
            assign = gast.Assign(targets=[gast.Name(name, gast.Store(), None, None)],
                                 value=tensor, type_comment=None)
            gast.copy_location(assign, stmt)
            assign.janus_hoisted = True
            load = gast.Name(name, gast.Load(), None, None)
            gast.copy_location(load, tensor)
            if isinstance(read.func, gast.Attribute) and read.func.value is tensor:
                read.func.value = load
            else:
                read.args[0] = load
            moved.append(assign)

    def _host_call(self, node) -> bool:
        """A call of host code (a builtin, numpy, math, random, time...): it stays in its
        break, where plain Python runs it."""
        if not isinstance(node, gast.Call):
            return False
        root = node.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name) or root.id in self.local_names:
            return False
        value = self.env.get(root.id)
        if value is None:
            return scope.is_builtin(root.id)
        module = user_attributes.get(value, "__name__", "") if isinstance(value, types.ModuleType) else \
            user_attributes.get(value, "__module__", "") or ""
        return module.split(".")[0] in _HOST_MODULES

    def _fresh(self) -> str:
        while True:
            name = f"{PREFIX}_{self.count}"
            self.count += 1
            if name not in self.taken:
                self.taken.add(name)
                return name


def _tape_only(stmt) -> bool:
    """A `with` of gradient tapes only (a tape catches nothing)."""
    for item in stmt.items:
        func = item.context_expr.func if isinstance(item.context_expr, gast.Call) else None
        name = func.attr if isinstance(func, gast.Attribute) else \
            func.id if isinstance(func, gast.Name) else None
        if name != "GradientTape":
            return False
    return True


def _first_read(root, conversions: frozenset):
    """(the read call, its tensor expression) of the first host read in `root`'s
    evaluation order whose tensor expression does work (holds a call), holds no read
    itself, and before which nothing else in the statement calls anything; or None."""
    calls: list = []
    for node in _evaluation_order(root):
        tensor = _read_of(node, conversions)
        if tensor is not None:
            inside = {id(n) for n in gast.walk(tensor)}
            if any(id(c) not in inside and not _pure_read(c) for c in calls):
                return None
            parts = list(gast.walk(tensor))
            if any(isinstance(n, gast.Call) for n in parts) and not any(
                    isinstance(n, _SKIPPED) or _read_of(n, conversions) is not None
                    for n in parts):
                return node, tensor
        if isinstance(node, gast.Call):
            calls.append(node)
    return None


_SKIPPED = (gast.Lambda, gast.Yield, gast.YieldFrom, gast.NamedExpr, gast.Await)


def _read_of(node, conversions: frozenset = _CONVERSIONS):
    """The tensor expression `node` reads on the host (`t.numpy()`, `float(t)`), or None."""
    if not isinstance(node, gast.Call) or node.keywords:
        return None
    func = node.func
    if isinstance(func, gast.Attribute) and func.attr == "numpy" and not node.args:
        return func.value
    if isinstance(func, gast.Name) and func.id in conversions and len(node.args) == 1 and \
            not isinstance(node.args[0], gast.Starred):
        return node.args[0]
    return None


def _evaluation_order(root):
    """`root`'s nodes in the order Python evaluates them (operands before their
    operation), up to a part Python may skip (`and`/`or`, `x if c else y`, chained
    comparisons, comprehensions) or a shape this pass does not know."""
    try:
        yield from _in_order(root)
    except _Stop:
        return


def _in_order(node):
    if isinstance(node, _LEAVES):
        yield node
        return
    if isinstance(node, gast.Call):
        children = [node.func, *node.args, *(k.value for k in node.keywords)]
    elif isinstance(node, (gast.Attribute, gast.Starred)):
        children = [node.value]
    elif isinstance(node, gast.Subscript):
        children = [node.value, node.slice]
    elif isinstance(node, gast.Slice):
        children = [p for p in (node.lower, node.upper, node.step) if p is not None]
    elif isinstance(node, gast.BinOp):
        children = [node.left, node.right]
    elif isinstance(node, gast.UnaryOp):
        children = [node.operand]
    elif isinstance(node, gast.Compare) and len(node.ops) == 1:
        children = [node.left, node.comparators[0]]
    elif isinstance(node, (gast.Tuple, gast.List)):
        children = list(node.elts)
    else:
        raise _Stop
    for child in children:
        yield from _in_order(child)
    yield node


class _Stop(Exception):
    pass


def _pure_read(call) -> bool:
    """A read of a value moved out already (`janus_read_0.numpy()`, `float(janus_read_1)`):
    no effect."""
    tensor = _read_of(call)
    return isinstance(tensor, gast.Name) and tensor.id.startswith(PREFIX)


def _bubble_up(stmts: list, hoisted) -> None:
    """Append `hoisted`, moved above the reads just before it that bind nothing it reads."""
    reads = liveness.reads(hoisted.value)
    at = len(stmts)
    while at > 0 and _only_reads(stmts[at - 1]) and not (_bound(stmts[at - 1]) & reads):
        at -= 1
    stmts.insert(at, hoisted)


def _only_reads(stmt) -> bool:
    """A statement left holding only reads of moved-out values (`x = janus_read_0.numpy()`,
    indexed, in tuples), bound to names: no other effect."""
    return isinstance(stmt, gast.Assign) and not getattr(stmt, "janus_hoisted", False) and \
        all(isinstance(t, gast.Name) for t in stmt.targets) and _pure_value(stmt.value)


def _pure_value(node) -> bool:
    if isinstance(node, gast.Call):
        return _pure_read(node)
    if isinstance(node, gast.Subscript):
        return _pure_value(node.value) and _plain_index(node.slice)
    if isinstance(node, gast.Tuple):
        return all(_pure_value(e) for e in node.elts)
    return False


def _plain_index(node) -> bool:
    """An index of names, constants and slices of those (numpy indexing: no effect)."""
    if isinstance(node, _LEAVES):
        return True
    if isinstance(node, gast.Slice):
        return all(p is None or _plain_index(p) for p in (node.lower, node.upper, node.step))
    if isinstance(node, gast.Tuple):
        return all(_plain_index(e) for e in node.elts)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _plain_index(node.operand)
    return False


def _bound(stmt) -> set[str]:
    return {t.id for t in stmt.targets if isinstance(t, gast.Name)}
