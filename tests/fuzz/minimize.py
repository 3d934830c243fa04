"""Shrink a diverging program and its call sequence while it keeps diverging the same way.

A simple greedy delta-debugging: drop calls one at a time; then, over and over until
nothing changes, delete one statement anywhere in the module (an emptied block gets
`pass`) or replace a compound statement (if/while/for/with) by its body; keep every
change after which the run still shows a divergence of the same class.
"""
from __future__ import annotations

import ast
from typing import Callable

from tests.fuzz import runner

_KEEP = ("f", "State", "__init__")


def _still(kind: str) -> Callable[[str, list], bool]:
    def check(source: str, calls: list) -> bool:
        try:
            compile(source, "<fuzz>", "exec")
            result = runner.run(source, calls, timeout=30)
        except Exception:  # noqa: BLE001 - a variant that does not even load is no repro
            return False
        return result.divergence is not None and result.divergence.kind == kind
    return check


def _bodies(tree: ast.AST):
    """Every statement list in the tree, outermost first."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield node, field


def _protected(stmt: ast.stmt, parent: ast.AST) -> bool:
    if isinstance(parent, ast.Module) and isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(parent, ast.Module) and isinstance(stmt, ast.Assign) and \
            any(isinstance(t, ast.Name) and t.id == "JIT" for t in stmt.targets):
        return True   # `JIT = globals().get(...)`: a repro file must run standalone
    return isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.name in _KEEP


def _count(source: str) -> int:
    return sum(len(getattr(n, f)) for n, f in _bodies(ast.parse(source)))


def _variant(source: str, index: int, mode: str) -> str | None:
    """`source` with statement number `index` deleted or (a compound one) flattened."""
    tree = ast.parse(source)
    if not _edit(tree, index, mode):
        return None
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _edit(tree: ast.AST, index: int, mode: str) -> bool:
    position = 0
    for parent, field in list(_bodies(tree)):
        stmts = getattr(parent, field)
        if index >= position + len(stmts):
            position += len(stmts)
            continue
        i = index - position
        stmt = stmts[i]
        if _protected(stmt, parent):
            return False
        if mode == "delete":
            replacement = []
        elif isinstance(stmt, (ast.If, ast.While, ast.For, ast.With)):
            replacement = stmt.body
        else:
            return False
        stmts[i:i + 1] = replacement
        if not stmts:
            if field == "orelse":
                setattr(parent, field, [])
            else:
                stmts.append(ast.Pass())
        return True
    return False


def minimize(source: str, calls: list, kind: str, budget: int = 400) -> tuple[str, list]:
    """The smallest (source, calls) found within `budget` runs still showing `kind`.
    Hangs ("timeout") are not minimized: every try would wait for the timeout."""
    if kind in ("timeout", "plain-timeout"):
        return source, calls
    check = _still(kind)
    runs = 0
    for i in range(len(calls) - 1, -1, -1):
        if len(calls) > 1 and runs < budget:
            runs += 1
            if check(source, calls[:i] + calls[i + 1:]):
                calls = calls[:i] + calls[i + 1:]
    source = ast.unparse(ast.parse(source)) + "\n"
    changed = True
    while changed and runs < budget:
        changed = False
        index = 0
        while index < _count(source) and runs < budget:
            for mode in ("delete", "flatten"):
                variant = _variant(source, index, mode)
                if variant is None or runs >= budget:
                    continue
                runs += 1
                if check(variant, calls):
                    source, changed = variant, True
                    break
            else:
                index += 1
    for i in range(len(calls) - 1, -1, -1):
        if len(calls) > 1 and runs < budget:
            runs += 1
            if check(source, calls[:i] + calls[i + 1:]):
                calls = calls[:i] + calls[i + 1:]
    return source, calls
