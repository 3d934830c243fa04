"""Small scope facts about statement lists: which names they bind, how they exit."""
from __future__ import annotations

import builtins

import gast

_NESTED_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
                  gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_LOOPS = (gast.For, gast.AsyncFor, gast.While)


def _walk_scope(nodes, *, into_loops: bool = True):
    """Yield nodes of `nodes` without entering nested scopes (or loops, if asked)."""
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED_SCOPES):
            continue  # a def/class/lambda at the top of the block: its name only
        for child in gast.iter_child_nodes(node):
            if isinstance(child, _NESTED_SCOPES):
                if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                    yield child  # its name is bound here, its body is not
                continue
            if not into_loops and isinstance(child, _LOOPS):
                yield child
                continue
            stack.append(child)


def walk_own_scope(nodes):
    """Every node of `nodes` in their own scope (nested defs: their header only)."""
    for node in _walk_scope(nodes):
        yield node
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            for part in node.decorator_list + node.args.defaults + \
                    [d for d in node.args.kw_defaults if d is not None]:
                yield from gast.walk(part)


def bound_names(stmts: list) -> list[str]:
    """Names bound by `stmts` in the enclosing scope, in first-seen order."""
    names: dict[str, None] = {}
    for node in _walk_scope(stmts):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            names[node.id] = None
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names[node.name] = None
        elif isinstance(node, gast.alias):
            names[(node.asname or node.name).split(".")[0]] = None
        elif isinstance(node, (gast.MatchAs, gast.MatchStar)) and node.name:
            names[node.name] = None  # (a `match` pattern's capture: `case [a, *rest]:`)
        elif isinstance(node, gast.MatchMapping) and node.rest:
            names[node.rest] = None  # (`case {"k": k, **rest}:`)
    return list(names)


def local_names(fn: gast.FunctionDef) -> set[str]:
    """Parameters and every name bound anywhere in the function's own scope."""
    args = fn.args
    params = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    params += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    declared = set()
    for node in _walk_scope(fn.body):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            declared.update(node.names)
    comprehension_targets = {
        n.id for node in gast.walk(fn) if isinstance(node, gast.comprehension)
        for n in gast.walk(node.target) if isinstance(n, gast.Name)}
    return (set(params) | set(bound_names(fn.body)) | comprehension_targets) - declared


def escapes(stmts: list) -> bool:
    """Whether `stmts` leave their block other than by falling through.

    True for `return`, `yield`, and `break`/`continue` that belong to an enclosing
    loop, and for scope declarations and deletions, which functional forms cannot keep.
    """
    for node in _walk_scope(stmts, into_loops=False):
        if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom, gast.Break,
                             gast.Continue, gast.Global, gast.Nonlocal)) or _user_del(node):
            return True
    # yield/return inside nested loops still leave the function
    for node in _walk_scope(stmts):
        if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom, gast.Global,
                             gast.Nonlocal)) or _user_del(node):
            return True
    return False


def _user_del(node) -> bool:
    """A `del` of the user's (janus's own unbinding of a name a block left unbound is
    not: transform/control_flow.py `_unbind`)."""
    return isinstance(node, gast.Delete) and not getattr(node, "janus_unbind", False)


def is_builtin(name: str) -> bool:
    return hasattr(builtins, name)
