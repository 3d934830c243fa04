"""Control flow becomes runtime hooks, in functional form where the block allows.

    if t: A else: B      ->  def if_true(): A ... ; janus__.if_stmt(site, t, if_true, if_false, get, set)
    for x in it: A       ->  def body(item): x = item; A ... ; janus__.for_stmt(site, it, body, get, set, names)
    while t: A           ->  while janus__.loop_test(site, t): A

A block that returns, breaks out, or declares scope keeps its Python form with a
hooked test or iterable (`if janus__.test(site, t)`, `for x in janus__.iterate(site, it)`):
such code can only be specialized (one branch, unrolled loop), never generalized
to `tf.cond`/`tf.while_loop`. The functional form lets the runtime choose: run
one branch or unroll (profiling, specialized graphs), or build `tf.cond` /
`tf.while_loop` (generalized graphs). Variables the block assigns are threaded
through `get`/`set` closures; names not bound before the block start as
`janus__.UNDEFINED`.
"""
from __future__ import annotations

import gast

from janus.transform import scope, templates
from janus.transform.sites import SiteTable
from janus.transform.templates import RUNTIME


def _user_names(names: list[str]) -> list[str]:
    return [n for n in names if not n.startswith("janus__")]


_LIST_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}


def _mutated_receivers(stmts: list, local_names: set[str]) -> list[str]:
    """Local names whose list is mutated in place (`xs.append(v)`) by `stmts`: loop state too,
    so a generalized loop can swap the list for an accumulator."""
    names: dict[str, None] = {}
    for stmt in stmts:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                    node.func.attr in _LIST_MUTATORS and isinstance(node.func.value, gast.Name) \
                    and node.func.value.id in local_names:
                names[node.func.value.id] = None
    return list(names)


def visit_def_header(transformer: gast.NodeTransformer, node):
    """Visit what a nested `def` evaluates in the enclosing scope (decorators, defaults),
    not its body."""
    node.decorator_list = [transformer.visit(d) for d in node.decorator_list]
    node.args.defaults = [transformer.visit(d) for d in node.args.defaults]
    node.args.kw_defaults = [d if d is None else transformer.visit(d)
                             for d in node.args.kw_defaults]
    return node


class ControlFlowTransformer(gast.NodeTransformer):
    def __init__(self, sites: SiteTable, local_names: set[str] = frozenset()):
        self.sites = sites
        self.local_names = local_names
        self.counter = 0
        self.nested = False  # inside the function being converted (not the function itself)

    def _fresh(self, stem: str) -> str:
        self.counter += 1
        return f"janus__{stem}_{self.counter}"

    # Nested functions stay exactly the user's code: a call from converted code converts
    # them on their own (`janus__.call`), and a library that calls them (a TF callback)
    # gets the plain function, with its own closure and globals.
    def visit_FunctionDef(self, node):
        if self.nested:  # `def f(...): ...` -> the same def; janus__.defined(f)
            defined = templates.statements(f"{RUNTIME}.defined(NAME)", NAME=node.name)
            return [visit_def_header(self, node)] + templates.copy_location(defined, node)
        self.nested = True
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        return node

    def _test(self, node, kind: str):
        """Hook a branch test; `and`/`or`/`not` get one hooked test per operand."""
        if isinstance(node, gast.BoolOp):
            node.values = [self._test(v, kind) for v in node.values]
            return node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            node.operand = self._test(node.operand, kind)
            return node
        site = self.sites.new(kind, node)
        call = templates.expression(f"{RUNTIME}.test(SITE, TEST)",
                                    SITE=templates.constant(site), TEST=node)
        return templates.copy_location(call, node)

    def _state_functions(self, names: list[str], get_name: str, set_name: str):
        reads = ", ".join(f"{RUNTIME}.read(lambda: {n})" for n in names)
        assigns = ", ".join(names)
        get_src = f"def {get_name}():\n    return ({reads}{',' if len(names) == 1 else ''})\n"
        if names:
            set_src = (f"def {set_name}(janus__values):\n    nonlocal {assigns}\n"
                       f"    ({assigns}{',' if len(names) == 1 else ''}) = janus__values\n")
        else:
            set_src = f"def {set_name}(janus__values):\n    pass\n"
        predeclare = "".join(f"{n} = {RUNTIME}.read(lambda: {n})\n" for n in names)
        return (templates.statements(predeclare) if names else [],
                templates.statements(get_src + set_src))

    def _closure(self, name: str, params: list[str], names: list[str], body: list):
        src = f"def {name}({', '.join(params)}):\n"
        if names:
            src += f"    nonlocal {', '.join(names)}\n"
        src += "    BODY\n"
        return templates.statements(src, BODY=body or [gast.Pass()])

    def visit_If(self, node):
        self.generic_visit(node)
        if scope.escapes(node.body) or scope.escapes(node.orelse) or \
                isinstance(node.test, gast.BoolOp):
            node.test = self._test(node.test, "if")
            return node
        site = self.sites.new("if", node.test)
        names = _user_names(scope.bound_names(node.body + node.orelse))
        in_false = set(scope.bound_names(node.orelse))
        both = gast.Tuple(elts=[templates.constant(i) for i, n in enumerate(names)
                                if n in in_false and n in scope.bound_names(node.body)],
                          ctx=gast.Load())
        t, f, g, s = (self._fresh(k) for k in ("if_true", "if_false", "get", "set"))
        predeclare, state_fns = self._state_functions(names, g, s)
        new = predeclare + self._closure(t, [], names, node.body) + \
            self._closure(f, [], names, node.orelse) + state_fns + templates.statements(
                f"{RUNTIME}.if_stmt(SITE, TEST, {t}, {f}, {g}, {s}, BOTH)",
                SITE=templates.constant(site), TEST=node.test, BOTH=both)
        return templates.copy_location(new, node)

    def visit_For(self, node):
        self.generic_visit(node)
        if scope.escapes(node.body):
            site = self.sites.new("for", node.iter)
            node.iter = templates.copy_location(templates.expression(
                f"{RUNTIME}.iterate(SITE, ITER)", SITE=templates.constant(site),
                ITER=node.iter), node.iter)
            return node
        site = self.sites.new("for", node.iter)
        names = _user_names(scope.bound_names(
            [gast.Assign(targets=[node.target], value=None)] + node.body))
        names += [n for n in _mutated_receivers(node.body, self.local_names) if n not in names]
        b, g, s = (self._fresh(k) for k in ("body", "get", "set"))
        predeclare, state_fns = self._state_functions(names, g, s)
        unpack = templates.statements("TARGET = janus__item", TARGET=node.target)
        body = self._closure(b, ["janus__item"], names, unpack + node.body)
        names_tuple = gast.Tuple(elts=[templates.constant(n) for n in names], ctx=gast.Load())
        new = predeclare + body + state_fns + templates.statements(
            f"{RUNTIME}.for_stmt(SITE, ITER, {b}, {g}, {s}, NAMES)",
            SITE=templates.constant(site), ITER=node.iter, NAMES=names_tuple) + node.orelse
        return templates.copy_location(new, node)

    def visit_While(self, node):
        self.generic_visit(node)
        if not scope.escapes(node.body) and not node.orelse:
            site = self.sites.new("while", node.test)
            names = _user_names(scope.bound_names(node.body))
            names += [n for n in _mutated_receivers(node.body, self.local_names) if n not in names]
            c, b, g, s = (self._fresh(k) for k in ("test", "body", "get", "set"))
            predeclare, state_fns = self._state_functions(names, g, s)
            test_fn = templates.statements(f"def {c}():\n    return TEST", TEST=node.test)
            names_tuple = gast.Tuple(elts=[templates.constant(n) for n in names], ctx=gast.Load())
            new = predeclare + test_fn + self._closure(b, [], names, node.body) + state_fns + \
                templates.statements(f"{RUNTIME}.while_stmt(SITE, {c}, {b}, {g}, {s}, NAMES)",
                                     SITE=templates.constant(site), NAMES=names_tuple)
            return templates.copy_location(new, node)
        site = self.sites.new("while", node.test)
        node.test = templates.copy_location(templates.expression(
            f"{RUNTIME}.loop_test(SITE, TEST)", SITE=templates.constant(site),
            TEST=node.test), node.test)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        node.test = self._test(node.test, "if-expression")
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        node.test = self._test(node.test, "assert")
        return node
