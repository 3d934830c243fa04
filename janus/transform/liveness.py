"""Which local names a stretch of statements reads before it binds them, and binds for sure.

Small, conservative facts for outlining (janus/transform/segments.py):

    inputs(stmts, defined)   names read before they are surely bound inside `stmts`
                             (their values must come from before the stretch)
    surely_bound(stmts, d)   names bound on every path through `stmts`, given `d` before
    bound(stmts)             names bound on some path (the stretch may change them)
    reads(nodes)             every name loaded (a comprehension's or lambda's own: not)

"Surely" errs on the small side and "reads" on the large side, so a name can only be
handed across a boundary when Python itself would have it bound.
"""
from __future__ import annotations

import gast

from janus.transform import scope


def reads(nodes) -> set[str]:
    """Every name loaded (or deleted: `del x` needs `x` bound) anywhere in `nodes`, but a
    comprehension's or lambda's own variables where they are its own (`[t * m for t in
    xs]` reads `m` and `xs`, not `t`: Python 3 binds `t` in the comprehension's scope)."""
    found: set[str] = set()
    for node in nodes if isinstance(nodes, list) else [nodes]:
        _loads(node, frozenset(), found)
    return found


_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)


def _loads(node, own: frozenset, found: set) -> None:
    """Names `node` loads from the enclosing scope (`own`: bound by a comprehension or
    lambda around it, not the enclosing scope's)."""
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, (gast.Load, gast.Del)) and node.id not in own:
            found.add(node.id)
        return
    if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and \
            node.target.id not in own:
        found.add(node.target.id)
    if isinstance(node, _COMPREHENSIONS):
        inner = own
        for k, generator in enumerate(node.generators):
            _loads(generator.iter, inner if k else own, found)  # (the first: outside)
            inner = inner | targets(generator.target)
            for test in generator.ifs:
                _loads(test, inner, found)
        results = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
        for part in results:
            _loads(part, inner, found)
        return
    if isinstance(node, gast.Lambda):
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            _loads(default, own, found)
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
        _loads(node.body, own | params, found)
        return
    for child in gast.iter_child_nodes(node):
        _loads(child, own, found)


def bound(stmts: list) -> set[str]:
    """Names bound (or deleted) somewhere in `stmts`, in their own scope."""
    return set(scope.bound_names(stmts))


def targets(node) -> set[str]:
    """The names an assignment target binds (`a`, `a, (b, c)`, `*rest`)."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Store)}


def surely_bound(stmts: list, defined: set[str]) -> set[str]:
    """The names bound after `stmts` on every path that falls through, given `defined`."""
    defined = set(defined)
    for stmt in stmts:
        defined = _after(stmt, defined)
    return defined


def _after(stmt, defined: set[str]) -> set[str]:
    if isinstance(stmt, gast.Assign):
        return defined | set().union(*(targets(t) for t in stmt.targets))
    if isinstance(stmt, gast.AnnAssign):
        return defined | (targets(stmt.target) if stmt.value is not None else set())
    if isinstance(stmt, gast.AugAssign):
        return defined  # the target had to be bound already
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return defined | {stmt.name}
    if isinstance(stmt, (gast.Import, gast.ImportFrom)):
        return defined | {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, gast.If):
        return surely_bound(stmt.body, defined) & surely_bound(stmt.orelse, defined)
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        items = set().union(*(targets(i.optional_vars) for i in stmt.items
                              if i.optional_vars is not None))
        return surely_bound(stmt.body, defined | items)
    if isinstance(stmt, gast.Expr):
        return defined
    # loops may run zero times, try/raise/return...: nothing new is sure (only `del`
    # unbinds what was bound)
    return defined - _deleted([stmt])


def _deleted(stmts: list) -> set[str]:
    return {n.id for node in scope.walk_own_scope(stmts) if isinstance(node, gast.Delete)
            for t in node.targets for n in gast.walk(t) if isinstance(n, gast.Name)}


def inputs(stmts: list, defined: set[str]) -> set[str]:
    """Names `stmts` may read before binding them themselves (`defined`: bound earlier in
    the same stretch)."""
    needed: set[str] = set()
    defined = set(defined)
    for stmt in stmts:
        needed |= _stmt_inputs(stmt, defined)
        defined = _after(stmt, defined)
    return needed


def _stmt_inputs(stmt, defined: set[str]) -> set[str]:
    if isinstance(stmt, (gast.For, gast.AsyncFor)):
        head = reads(stmt.iter) - defined
        inner = defined | targets(stmt.target)
        return head | inputs(stmt.body, inner) | inputs(stmt.orelse, defined)
    if isinstance(stmt, gast.While):
        return (reads(stmt.test) - defined) | inputs(stmt.body, defined) | \
            inputs(stmt.orelse, defined)
    if isinstance(stmt, gast.If):
        return (reads(stmt.test) - defined) | inputs(stmt.body, defined) | \
            inputs(stmt.orelse, defined)
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        head = reads([i.context_expr for i in stmt.items]) - defined
        items = set().union(*(targets(i.optional_vars) for i in stmt.items
                              if i.optional_vars is not None))
        return head | inputs(stmt.body, defined | items)
    return reads(stmt) - defined

