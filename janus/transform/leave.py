"""Leaving a loop after a segment: an `if` that leaves the loop, its test and what follows it.

In a loop kept Python (its body split at graph breaks), an `if` whose body leaves the loop
stays Python too (its tensor test flips between calls: in a graph each flip would cost a
new trace), so the statements after it start a new segment. This pass rewrites the loop
body so that only the leaving itself is Python:

    for ...:                              for ...:
        A                                     A
        if TEST:                              janus_leave = TEST
            B                      ->         if janus_leave:
            break                                 pass
        C                                     else:
                                                  C
                                              if janus_leave:
                                                  B
                                                  break

`A; janus_leave = TEST; if janus_leave: pass else: C` can then be one segment (the `if` on
a tensor built as `tf.cond`, the variables `C` updates carried out of it), and only the
last `if` (one read of the flag, which eager needs too) runs in Python. It is plain
Python's meaning: `TEST` is evaluated once at the same point; `C` runs (with its effects)
only when the loop is not left and `B` only when it is, so their order does not matter;
an exception of `TEST` or `C` leaves the same state behind. `B` ends with `break`,
`continue` or `return` and holds no other jump; `C` (with the `if`'s `else`, which runs
just before it) holds no jump out of the loop and nothing leaving the function. Only the
last such `if` of a loop body is rewritten (`C` of an earlier one would hold it).
"""
from __future__ import annotations

import gast

from janus.transform import scope, templates

FLAG = "janus_leave"
"""The stem of the flag names (made fresh per function by the caller)."""
GUARD = "janus_leave_guard"
"""Attribute set on the `if flag: pass else: C` statements this pass makes."""
_JUMPS = (gast.Break, gast.Continue, gast.Return)


def leaving(stmt) -> bool:
    """Whether `stmt` is `if TEST: B; <break|continue|return>` with no other jump in `B`
    (nor in its `else`)."""
    if not isinstance(stmt, gast.If) or not stmt.body or not isinstance(stmt.body[-1], _JUMPS):
        return False
    return not _jumps(stmt.body[:-1]) and not _jumps(stmt.orelse)


def _jumps(stmts: list) -> bool:
    """`stmts` leave their block other than by falling through (or bind scope names)."""
    return scope.escapes(stmts) or any(isinstance(n, gast.Await) for s in stmts
                                       for n in gast.walk(s))


def last_leaving(body: list) -> int | None:
    """The index of the last statement of a loop body that can be rewritten: `leaving`,
    followed by statements (`C`) that do not jump."""
    for i in range(len(body) - 1, -1, -1):
        if leaving(body[i]):
            rest = body[i].orelse + body[i + 1:]
            return i if rest and not _jumps(rest) else None
        if _jumps([body[i]]):
            return None
    return None


def rewrite(body: list, index: int, flag: str) -> list:
    """`body` (a loop's) with the leaving `if` at `index` rewritten (see the module
    docstring); the flag is named `flag`. The statements keep the user's lines: the
    assignment and the last `if` the test's, the guarded `if` the first line of `C`."""
    node = body[index]
    rest = node.orelse + body[index + 1:]
    assign = templates.statements(f"{flag} = TEST", TEST=node.test)
    templates.copy_location(assign, node.test)
    guard = templates.statements(f"if {flag}:\n    pass\nelse:\n    REST", REST=rest)
    first, last = rest[0], rest[-1]
    templates.copy_location(guard, first)
    guard[0].end_lineno = getattr(last, "end_lineno", None) or last.lineno
    setattr(guard[0], GUARD, flag)
    leave = templates.statements(f"if {flag}:\n    BODY", BODY=node.body)
    templates.copy_location(leave, node)
    return body[:index] + assign + guard + leave


def is_guard(stmt) -> bool:
    """Whether `stmt` is a `if flag: pass else: C` this pass made."""
    return getattr(stmt, GUARD, None) is not None
