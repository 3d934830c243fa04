"""`continue` in a loop whose only other way out is (at most) one `if <test>: break`: the
statements after each `if c: ...; continue` become its `else:`, so the loop keeps one exit
and can still become one tf.while_loop (graphgen/exits.py).

    for x in xs:                          for x in xs:
        A                                     A
        if c:                                 janus__skip_1 = c
            S                                 if janus__skip_1:
            continue                              S
        B                          ->         else:
        if t:                                     B
            break                             if not janus__skip_1 and t:
        C                                         break
        if d:                                 if janus__skip_1:
            continue                              pass
        D                                     else:
                                                  C
                                                  if d:
                                                      pass
                                                  else:
                                                      D

A loop without a `break` has what follows each such `if` nested the same way (then a
tensor test `if c: continue` can become a tf.cond: zoo p42's `if count == 0: continue`
in a loop over experts). A `continue` after the exit test only nests what follows it;
one before the exit test (at most one, its test not an `and`/`or`/`not`) is remembered
in a flag that guards the exit test and what follows it. Loops in other shapes (a `continue` deeper inside, two
before the exit test, another `break` or a `return`) are left as they are: janus
unrolls them, guarded, as before.
"""
from __future__ import annotations

from typing import Callable

import gast

from janus.transform import scope, templates


def _is_exit(stmt) -> bool:
    return isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], gast.Break)


def _is_continue(stmt) -> bool:
    return isinstance(stmt, gast.If) and not stmt.orelse and bool(stmt.body) and \
        isinstance(stmt.body[-1], gast.Continue) and not scope.escapes(stmt.body[:-1])


def _compound(test) -> bool:
    """`and`/`or`/`not` (as a value, kept in the flag, Python would ask a tensor's truth)."""
    return isinstance(test, gast.BoolOp) or \
        isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)


def _nested(stmts: list) -> list:
    """`stmts` with each `if c: S; continue` holding the statements after it as `else:`."""
    for i, stmt in enumerate(stmts):
        if _is_continue(stmt):
            stmt.body = stmt.body[:-1] or [gast.Pass()]
            stmt.orelse = _nested(stmts[i + 1:])
            return stmts[:i + 1]
    return stmts


def transform(node, fresh: Callable[[str], str]) -> None:
    """Rewrite the body of loop `node` (a gast For/While, not yet converted) in place when
    it has the shape above."""
    body = node.body
    exits = [i for i, s in enumerate(body) if _is_exit(s)]
    continues = [i for i, s in enumerate(body) if _is_continue(s)]
    if node.orelse or len(exits) > 1 or not continues:
        return
    special = set(exits + continues)
    if scope.escapes([s for i, s in enumerate(body) if i not in special]):
        return
    if not exits:  # only `if c: ...; continue`: what follows each becomes its `else:`
        node.body = _nested(body)
        return
    at = exits[0]
    before = [i for i in continues if i < at]
    if len(before) > 1 or before and _compound(body[before[0]].test):
        return
    after = _nested(body[at + 1:])
    if not before:
        node.body = body[:at + 1] + after
        return
    first, exit_if = body[before[0]], body[at]
    flag = fresh("skip")
    remember = templates.copy_location(templates.statements(f"{flag} = TEST", TEST=first.test),
                                       first)
    first.test = templates.name(flag)
    first.body = first.body[:-1] or [gast.Pass()]
    first.orelse = body[before[0] + 1:at] or []
    exit_if.test = templates.copy_location(templates.expression(
        f"not {flag} and TEST", TEST=exit_if.test), exit_if.test)
    rest = []
    if after:
        rest = templates.copy_location(templates.statements(
            f"if {flag}:\n    pass\nelse:\n    REST", REST=after), after[0])
    node.body = body[:before[0]] + remember + [first, exit_if] + rest
