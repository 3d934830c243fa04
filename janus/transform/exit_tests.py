"""A loop's exit test made of `and`/`or`/`not` in functional form: each operand a thunk, so
a generalized loop can combine its operands as tensors and still run an operand only where
Python would (short-circuit).

    if janus__.test(1, tok == END) or \\       if janus__.test(3, janus__.either(
            not janus__.test(2, ok):       ->          lambda: janus__.test(1, tok == END),
        break                                          lambda: janus__.negate(janus__.test(2, ok)))):
                                                   return True

(`_test` in control_flow.py has already hooked each operand with its own site, 1 and 2.)
The whole test gets a site of its own (3, kind "exit"), whose `parts` are the operands'
sites: the loop's key in plans, and where a generalized trace records the combined test.
In Python (and while profiling, and in specialized graphs) `either`/`both`/`negate` are
`or`/`and`/`not` over the operands' bools: the operands keep their own sites and guards.
A loop with several exit tests has one more site (kind "exits") whose parts are theirs.
"""
from __future__ import annotations

import copy

import gast

from janus.transform import templates
from janus.transform.sites import SiteTable
from janus.transform.templates import RUNTIME

_COMBINERS = {gast.Or: "either", gast.And: "both"}


def hooked(node) -> bool:
    """Whether `node` is `janus__.test(<site>, <expression>)`."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == "test" and isinstance(node.func.value, gast.Name) and \
        node.func.value.id == RUNTIME and len(node.args) == 2 and \
        isinstance(node.args[0], gast.Constant)


def _clean(node) -> bool:
    """No assignment expression (it would bind in the thunk), yield or await."""
    return not any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
                   for n in gast.walk(node))


def is_exit_test(node) -> bool:
    """A hooked test, or `and`/`or`/`not` over exit tests."""
    if hooked(node):
        return _clean(node.args[1])
    if isinstance(node, gast.BoolOp):
        return all(is_exit_test(v) for v in node.values)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return is_exit_test(node.operand)
    return False


def parts(node) -> list[int]:
    """The sites of the hooked tests in `node` (an exit test's or a `while` test's operands)."""
    return [n.args[0].value for n in gast.walk(node) if hooked(n)]


def user_source(node):
    """The test as the user wrote it (the hooks taken out), for the site's text."""
    class Unhook(gast.NodeTransformer):
        def visit_Call(self, call):
            self.generic_visit(call)
            return call.args[1] if hooked(call) else call
    return Unhook().visit(copy.deepcopy(node))


def functional(node):
    """`and`/`or`/`not` over hooked tests as `both`/`either`/`negate` over thunks."""
    if hooked(node):
        return node
    if isinstance(node, gast.UnaryOp):
        return templates.expression(f"{RUNTIME}.negate(X)", X=functional(node.operand))
    thunks = [templates.expression("lambda: X", X=functional(v)) for v in node.values]
    call = templates.expression(f"{RUNTIME}.{_COMBINERS[type(node.op)]}()")
    call.args = thunks
    return call


def transform(test, sites: SiteTable) -> tuple[int, gast.expr]:
    """(the exit site, the test in functional form) of an exit test (`is_exit_test`)."""
    if hooked(test):
        return test.args[0].value, test
    site = sites.new("exit", user_source(test), parts=tuple(parts(test)))
    new = templates.expression(f"{RUNTIME}.test(SITE, TEST)", SITE=templates.constant(site),
                               TEST=functional(test))
    return site, templates.copy_location(new, test)


def exit_sites(table: SiteTable, exit_site: int) -> tuple[tuple, tuple]:
    """(the exit tests' sites, their operands' sites) of a loop whose exit site is
    `exit_site`; for a `while`'s own site, no exit test and its test's operands."""
    site = table[exit_site]
    if site.kind == "while":
        return (), tuple(site.parts)
    tests = site.parts if site.kind == "exits" else (exit_site,)
    return tests, tuple(p for t in tests for p in table[t].parts)
