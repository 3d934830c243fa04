"""`global X` / `nonlocal X` in the function: its stores become runtime calls (before
control flow).

    global STEP, LOG                  (removed)
    STEP += 1                  ->     janus__.st_global('STEP', janus__.aug('+=', STEP, 1))
    LOG = LOG + [x]            ->     janus__.st_global('LOG', LOG + [x])
    nonlocal count                    (removed)
    count += 1                 ->     janus__.st_free('count', janus__.aug('+=', count, 1))

Plain runs store into the module (the closure's cell) as Python does; a trace keeps the
store in its heap ledger (reads of `STEP` after it see the new value) and the write-back
stores it after the graph ran (fallback/heap.py). Any other way of binding a declared
name (a tuple target, a `for` or `with` target, `del`, an import, a nested `def` of that
name, a walrus) stays refused: the function runs eagerly, as before.
"""
from __future__ import annotations

import gast

from janus.errors import ConversionError
from janus.transform import scope, templates
from janus.transform.templates import RUNTIME

_AUG = {gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=",
        gast.FloorDiv: "//=", gast.Mod: "%=", gast.Pow: "**=", gast.MatMult: "@=",
        gast.BitAnd: "&=", gast.BitOr: "|=", gast.BitXor: "^=", gast.LShift: "<<=",
        gast.RShift: ">>="}


def declared(fn: gast.FunctionDef) -> dict[str, str]:
    """Names `fn`'s own scope declares `global` or `nonlocal`: {name: that keyword}."""
    names = {}
    for node in scope.walk_own_scope(fn.body):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            kind = "global" if isinstance(node, gast.Global) else "nonlocal"
            names.update((name, kind) for name in node.names)
    return names


class GlobalStores(gast.NodeTransformer):
    """Rewrites the stores of `names` (declared global or nonlocal) in the function's own
    scope."""

    def __init__(self, names: dict[str, str]):
        self.names = names
        self.top = None

    def visit_FunctionDef(self, node):
        if self.top is not None:  # a nested def: its own scope (converted on its own)
            if node.name in self.names:
                self._refuse(node, node.name, f"a nested `def {node.name}`")
            return node
        self.top = node
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        return node

    def visit_ClassDef(self, node):
        if node.name in self.names:
            self._refuse(node, node.name, f"a `class {node.name}`")
        return node

    def visit_Global(self, node):
        return None

    def visit_Nonlocal(self, node):
        return None

    def visit_Assign(self, node):
        stored = [t for t in node.targets if isinstance(t, gast.Name) and t.id in self.names]
        if not stored:
            return self.generic_visit(node)
        if len(node.targets) != 1:
            self._refuse(node, stored[0].id, "a chained assignment")
        return self._store(stored[0].id, self.visit(node.value), node)

    def visit_AugAssign(self, node):
        target = node.target
        if not (isinstance(target, gast.Name) and target.id in self.names):
            return self.generic_visit(node)
        node.value = self.visit(node.value)
        value = templates.expression(f"{RUNTIME}.aug(OP, X, V)",
                                     OP=templates.constant(_AUG[type(node.op)]),
                                     X=templates.name(target.id), V=node.value)
        return self._store(target.id, value, node)

    def visit_Name(self, node):
        if node.id in self.names and not isinstance(node.ctx, gast.Load):
            self._refuse(node, node.id, "a binding other than `=` or an augmented assignment")
        return node

    def visit_alias(self, node):
        if (node.asname or node.name).split(".")[0] in self.names:
            self._refuse(None, (node.asname or node.name).split(".")[0], "an import")
        return node

    def _store(self, name: str, value, anchor):
        hook = "st_global" if self.names[name] == "global" else "st_free"
        return templates.copy_location(templates.statements(
            f"{RUNTIME}.{hook}(NAME, V)", NAME=templates.constant(name), V=value), anchor)

    def _refuse(self, node, name: str, what: str):
        kind = "global" if self.names.get(name) == "global" else "nonlocal variable"
        raise ConversionError(f"rebinds a {kind} it declares with {what}, which janus does "
                              "not convert", lineno=getattr(node, "lineno", None) or 0)
