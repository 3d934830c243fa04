"""`and`/`or`/`not` and conditional expressions used as values become runtime hooks whose
later operands are thunks, so Python's order and short-circuit stay exact while a graph
can specialize each truth test (guarded, one graph per outcome) or make it a `tf.cond`
(graphgen/bool_values.py):

    c = a or b or d       ->  c = janus__.or_value(1, a, lambda: janus__.or_value(2, b, lambda: d))
    c = a and b           ->  c = janus__.and_value(3, a, lambda: b)
    c = not a             ->  c = janus__.not_value(4, a)
    c = x if t else y     ->  c = janus__.if_value(5, t, lambda: x, lambda: y)
    c = a < b <= d        ->  c = janus__.compare_chain((6,), ('<', '<='), a, b, lambda: d)
    c = min(a, b)         ->  c = janus__.min_max(7, '<', min, a, b)
    c = max(xs)           ->  c = janus__.min_max(8, '>', max, xs)

Each site is the truth test of the operand before it (`a` for 1, `b` for 2, `t` for 5,
`a < b` for 6, `b < a` for 7: `min(a, b)` is `b if b < a else a` and `max(a, b)` is
`b if b > a else a` once `min`/`max` is the builtin (checked when it runs), and of more
operands or one list or tuple (8) each item is tested so against the one kept, as the
builtin folds them; a chained comparison is an `and` of its comparisons, each operand evaluated
once; also as a test, whose hook then tests what the chain gives); `or_value` returns `a`
itself when it is true, as Python does. What stays as it is:

- tests (`if`/`while`/`assert`, a comprehension's `if`): control_flow.py hooks each operand
  of their `and`/`or`/`not` as a test of its own; a conditional expression whose test is
  an `and`/`or`/`not` keeps its Python form with such a hooked test;
- an operand that can only be a Python bool (`x is None`, `k in KEYS`, a constant): its
  `or`/`and` stays Python (`x is None or janus__.or_value(...)`): no hook to pay for;
- code a thunk would change: an assignment expression, `yield`, `await`, `super()`,
  `locals()`, `vars()`, `dir()`, and anything in a class body.
"""
from __future__ import annotations

import copy

import gast

from janus.transform import templates
from janus.transform.templates import RUNTIME

_HOOKS = {gast.Or: ("or", "or_value"), gast.And: ("and", "and_value")}  # (site kind, hook)
_FRAME_CALLS = {"super", "locals", "vars", "dir"}
_COMPARISONS = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
                gast.NotEq: "!=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
                gast.NotIn: "not in"}

_MIN_MAX = {"min": "<", "max": ">"}  # (the comparison of the second operand with the first)
_OPS = {"<": gast.Lt, ">": gast.Gt}


def thunkable(nodes: list) -> bool:
    """Whether each of `nodes` means the same inside a `lambda:` as where it is."""
    for node in nodes:
        for child in gast.walk(node):
            if isinstance(child, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)):
                return False
            if isinstance(child, gast.Call) and isinstance(child.func, gast.Name) and \
                    child.func.id in _FRAME_CALLS:
                return False
    return True


def python_bool(node) -> bool:
    """Whether `node` can only be a Python bool (or a constant): its truth needs no hook."""
    if isinstance(node, gast.Constant):
        return True
    return isinstance(node, gast.Compare) and all(
        isinstance(op, (gast.Is, gast.IsNot, gast.In, gast.NotIn)) for op in node.ops)


def _located(new, old):
    return templates.copy_location(new, old)


class BoolValues:
    """Mixed into ControlFlowTransformer (`self.sites`, `self._test`): the rewrites of the
    module docstring. Tests are marked first (`_mark_test`) so they keep their hooks."""

    class_depth = 0  # class bodies around the node being visited

    def _mark_test(self, test) -> None:
        """`test` is a test: its `and`/`or`/`not` (nested) are not values."""
        test.janus_test = True
        if isinstance(test, gast.BoolOp):
            for value in test.values:
                self._mark_test(value)
        elif isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
            self._mark_test(test.operand)

    def _is_test(self, node) -> bool:
        return getattr(node, "janus_test", False) or self.class_depth > 0

    def visit_ClassDef(self, node):
        self.class_depth += 1
        try:
            self.generic_visit(node)
        finally:
            self.class_depth -= 1
        return node

    def visit_comprehension(self, node):
        for test in node.ifs:
            self._mark_test(test)
        self.generic_visit(node)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if self._is_test(node) or not thunkable(node.values[1:]):
            return node
        rest = node.values[-1]
        for value in reversed(node.values[:-1]):
            if python_bool(value):
                rest = _located(gast.BoolOp(op=type(node.op)(), values=[value, rest]), node)
                continue
            kind, hook = _HOOKS[type(node.op)]
            site = self.sites.new(kind, value)
            rest = _located(templates.expression(
                f"{RUNTIME}.{hook}(SITE, VALUE, lambda: REST)",
                SITE=templates.constant(site), VALUE=value, REST=rest), node)
        return rest

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not) or self._is_test(node) or \
                python_bool(node.operand):
            return node
        site = self.sites.new("not", node.operand)
        return _located(templates.expression(f"{RUNTIME}.not_value(SITE, VALUE)",
                                             SITE=templates.constant(site),
                                             VALUE=node.operand), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) < 2 or self.class_depth or python_bool(node) or \
                not thunkable(node.comparators[1:]):
            return node
        operands = [node.left] + node.comparators
        sites = tuple(self.sites.new("chain", gast.Compare(left=operands[i], ops=[op],
                                                           comparators=[operands[i + 1]]))
                      for i, op in enumerate(node.ops[:-1]))
        call = templates.expression(f"{RUNTIME}.compare_chain(SITES, OPS, LEFT, RIGHT)",
                                    SITES=templates.constant(sites),
                                    OPS=templates.constant(tuple(_COMPARISONS[type(op)]
                                                                 for op in node.ops)),
                                    LEFT=node.left, RIGHT=node.comparators[0])
        call.args += [templates.expression("lambda: X", X=c) for c in node.comparators[1:]]
        return _located(call, node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (isinstance(node.func, gast.Name) and node.func.id in _MIN_MAX and
                node.args and not node.keywords and self.class_depth == 0 and
                not any(isinstance(a, gast.Starred) for a in node.args)):
            return node
        op = _MIN_MAX[node.func.id]
        if len(node.args) == 2:  # (its test: `b < a`)
            test = gast.Compare(left=copy.deepcopy(node.args[1]), ops=[_OPS[op]()],
                                comparators=[copy.deepcopy(node.args[0])])
        else:  # (`max(losses)`, `min(a, b, c)`: each item against the one kept)
            test = copy.deepcopy(node)
        site = self.sites.new("if-expression", templates.copy_location(test, node))
        call = templates.expression(f"{RUNTIME}.min_max(SITE, OP, FN)",
                                    SITE=templates.constant(site),
                                    OP=templates.constant(op), FN=node.func)
        call.args += node.args
        return _located(call, node)

    def visit_IfExp(self, node):
        boolean = isinstance(node.test, gast.BoolOp) or \
            isinstance(node.test, gast.UnaryOp) and isinstance(node.test.op, gast.Not)
        if boolean:
            self._mark_test(node.test)
        self.generic_visit(node)
        if boolean or self._is_test(node) or not thunkable([node.body, node.orelse]):
            node.test = self._test(node.test, "if-expression")
            return node
        site = self.sites.new("if-expression", node.test)
        return _located(templates.expression(
            f"{RUNTIME}.if_value(SITE, TEST, lambda: BODY, lambda: ORELSE)",
            SITE=templates.constant(site), TEST=node.test, BODY=node.body,
            ORELSE=node.orelse), node)
