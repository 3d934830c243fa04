"""Reads of a name a block binds, where the block may read it before anything bound it.

control_flow.py threads a block's names through closures, starting the ones not bound
yet as `janus__.UNDEFINED` (a closure must find a binding to declare `nonlocal`). Python
raises UnboundLocalError where such a name is read before the block binds it; janus's
closures would read the marker instead (a TypeError of janus's own, `<undefined>` in a
trace: F179). So, in the block's own code (its test, its iterable, its body; not the
user's nested defs, lambdas or comprehensions, which keep their own scope):

    while t < 2:                   while janus__.bound(t, 't') < 2:
        t = t + x           ->         t = janus__.bound(t, 't') + x
        t += x                         janus__.bound(t, 't')
                                       t += x

only for the names the block may read before binding them that may be unbound when it
starts (`checked`); every other read stays as it is.
"""
from __future__ import annotations

import gast

from janus.transform import liveness, scope, templates
from janus.transform.templates import RUNTIME


def checked(node, bound_before: set | None) -> set[str]:
    """The names block `node` (an `if`, `for` or `while` of the user's code, before it is
    converted) binds and may read before binding them, not surely bound when it starts
    (`bound_before`; None: nothing is known to be bound)."""
    if isinstance(node, gast.If):
        first = liveness.reads(node.test) | liveness.inputs(node.body, set()) | \
            liveness.inputs(node.orelse, set())
    elif isinstance(node, gast.For):
        first = liveness.reads(node.iter) | \
            liveness.inputs(node.body, liveness.targets(node.target))
    else:
        first = liveness.reads(node.test) | liveness.inputs(node.body, set())
    bound = set(scope.bound_names(node.body + node.orelse))
    if isinstance(node, gast.For):
        bound |= liveness.targets(node.target)
    return {n for n in bound & first
            if not n.startswith(RUNTIME) and n not in (bound_before or set())}


class CheckedReads(gast.NodeTransformer):
    """The rewrite of the module docstring over one block's own code."""

    def __init__(self, names: set[str]):
        self.names = names

    def _check(self, name: str):
        return templates.expression(f"{RUNTIME}.bound(NAME, TEXT)", NAME=name,
                                    TEXT=templates.constant(name))

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.names:
            return templates.copy_location(self._check(node.id), node)
        return node

    def visit_AugAssign(self, node):
        node.value = self.visit(node.value)
        if isinstance(node.target, gast.Name) and node.target.id in self.names:
            check = gast.Expr(value=self._check(node.target.id))
            return [templates.copy_location(check, node), node]
        node.target = self.visit(node.target)
        return node

    def visit_FunctionDef(self, node):  # a nested def: its header only
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        return node

    def visit_Lambda(self, node):
        return node

    def _own_scope(self, node):
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _own_scope
    visit_ClassDef = visit_AsyncFunctionDef = _own_scope


def check_reads(node, bound_before: set | None) -> None:
    """Rewrites block `node`'s reads of its `checked` names in place."""
    names = checked(node, bound_before)
    if not names:
        return
    rewrite = CheckedReads(names)
    parts = ("test", "body", "orelse") if not isinstance(node, gast.For) else \
        ("iter", "body", "orelse")
    for part in parts:
        value = getattr(node, part)
        if isinstance(value, list):
            new = []
            for stmt in value:
                result = rewrite.visit(stmt)
                new.extend(result if isinstance(result, list) else [result])
            setattr(node, part, new)
        else:
            setattr(node, part, rewrite.visit(value))
