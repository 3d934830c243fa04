"""Control flow becomes runtime hooks, in functional form where the block allows.

    if t: A else: B      ->  def if_true(): A ... ; janus__.if_stmt(site, t, if_true, if_false, get, set)
    if not t: A else: B  ->  as `if t: B else: A` (Python asks t's truth once either way;
                             a block that breaks, continues or returns keeps its `not`)
    for x in it: A       ->  def body(item): x = item; A ... ; janus__.for_stmt(site, it, body, get, set, names)
    while t: A           ->  while janus__.loop_test(site, t): A

    for x in it:                 def body(item):
        A                            x = item; A
        if t:                ->      if janus__.test(exit, t):
            break                        return True      # the loop ends
        B                            B
                                 janus__.for_stmt(site, it, body, get, set, names, exit,
                                                  live, fresh)
    while t: ... if u: break ...  ->  the same, with janus__.while_stmt(site, test, body, ...)

A `for` or `while` loop whose only way out is one `if <test>: break` among its body's
statements (no `else:`; the test may be an `and`/`or`/`not` of tests: exit_tests.py;
`if c: continue` are nested first: continues.py)
takes the functional form too, its body returning True where it breaks: a
generalized graph runs it as a `tf.while_loop` that stops on the test (`live`: the
names read outside the loop, or anywhere when the loop is inside another loop; `fresh`:
the names it binds that neither an iteration reads before binding them nor anything after
the loop reads: not carried from one iteration to the next; none where the function can
read its frame's locals, `locals()`...).
Any other block that returns, breaks out, or declares scope keeps its Python form with a
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

from janus.transform import (continues, exit_tests, liveness, scope, templates,
                             unbound_reads)
from janus.transform.bool_values import BoolValues, thunkable
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


def _report_unbound(fn, local_names: set) -> None:
    """Wraps the function's body so that a name a nested block left unbound, read in one
    of janus's closures (Python: NameError "cannot access free variable"), raises the
    UnboundLocalError the original raises (`janus__.unbound`: the user's locals only)."""
    local = gast.Tuple(elts=[templates.constant(n) for n in sorted(local_names)
                             if not n.startswith("janus__")], ctx=gast.Load())
    fn.body = templates.statements(
        f"try:\n    BODY\nexcept NameError as janus__error:\n"
        f"    {RUNTIME}.unbound(janus__error, LOCAL)\n    raise\n", BODY=fn.body, LOCAL=local)


def _unbind(names: list[str], node, bound_before: dict, maybe_unbound: bool) -> list:
    """`if z is janus__.UNDEFINED: del z` after a block, for each name it threads through
    its closures that may not have been bound before it (at the function's top level: not
    surely bound; in a nested block: any): one the block did not bind either (the branch
    not taken, a loop that ran no iteration) is unbound again, so reading it raises
    UnboundLocalError as in Python (F55, F135). `maybe_unbound` (a nested block inside
    this one did so already): `if janus__.read(lambda: z) is janus__.UNDEFINED: z =
    janus__.UNDEFINED; del z`. The `del` is marked janus's own: an enclosing block still
    takes its functional form (scope.escapes)."""
    bound = bound_before.get(id(node), set())
    names = [n for n in names if n not in bound]
    if not names:
        return []
    if maybe_unbound:  # (a nested block inside may have unbound it already)
        source = "".join(f"if {RUNTIME}.read(lambda: {n}) is {RUNTIME}.UNDEFINED:\n"
                         f"    {n} = {RUNTIME}.UNDEFINED\n    del {n}\n" for n in names)
    else:
        source = "".join(f"if {n} is {RUNTIME}.UNDEFINED:\n    del {n}\n" for n in names)
    statements = templates.statements(source)
    for statement in statements:
        for child in gast.walk(statement):
            if isinstance(child, gast.Delete):
                child.janus_unbind = True
    return statements


def _raises_when(node: gast.If) -> bool | None:
    """The outcome of an `if`'s test after which it surely raises (its branch ends in
    `raise`), or None: a trace does best to specialize the test the other way (the
    graph then stands for the calls that do not raise; graphgen/site_tests.expect)."""
    ends = [bool(block) and isinstance(block[-1], gast.Raise)
            for block in (node.body, node.orelse)]
    if ends[0] != ends[1]:
        return ends[0]
    return None


def _bound_before(fn) -> dict[int, set]:
    """For each top-level statement of `fn`, the names surely bound when it starts: the
    parameters and the targets of the unconditional bindings before it."""
    args = fn.args
    bound = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    result = {}
    for stmt in fn.body:
        result[id(stmt)] = set(bound)
        if isinstance(stmt, (gast.Assign, gast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            bound |= {n.id for t in targets for n in gast.walk(t)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        elif isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            bound.add(stmt.name)
        elif isinstance(stmt, (gast.Import, gast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return result


def visit_def_header(transformer: gast.NodeTransformer, node):
    """Visit what a nested `def` evaluates in the enclosing scope (decorators, defaults),
    not its body."""
    node.decorator_list = [transformer.visit(d) for d in node.decorator_list]
    node.args.defaults = [transformer.visit(d) for d in node.args.defaults]
    node.args.kw_defaults = [d if d is None else transformer.visit(d)
                             for d in node.args.kw_defaults]
    return node


class OwnBody(gast.NodeTransformer):
    """A pass over the converted function's own code: the function and the blocks janus
    made of it (`janus__...` defs) are visited; a nested user `def` only in its header (its
    body stays the user's code, converted when called). `depth`: 0 in the function, >0
    inside a nested scope a subclass enters."""

    depth = -1

    def visit_FunctionDef(self, node):
        if node.name.startswith(RUNTIME) and self.depth >= 0:  # (a block janus made of
            self.generic_visit(node)  # the function's code; not a lambda converted as the
            return node  # `def janus__lambda` it stands for: F165)
        if self.depth >= 0:  # a nested user `def`
            return visit_def_header(self, node)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node


def _loop_exits(node) -> list | None:
    """The `if <hooked test>: break` statements of a loop's body when they are the loop's
    only ways out (top-level statements of the body, at most 4; the loop has no `else:`)."""
    if node.orelse:
        return None
    exits = [s for s in node.body if isinstance(s, gast.If) and not s.orelse and
             len(s.body) == 1 and isinstance(s.body[0], gast.Break) and
             exit_tests.is_exit_test(s.test)]
    if not 1 <= len(exits) <= 4 or scope.escapes([s for s in node.body if s not in exits]):
        return None
    return exits


# Calls that can read every local of the frame: no loop variable is left uncarried.
_FRAME_READERS = {"locals", "vars", "dir", "eval", "exec", "_getframe", "currentframe",
                  "f_locals", "getouterframes"}


def _reads_frame(fn) -> bool:
    return any(isinstance(n, gast.Name) and n.id in _FRAME_READERS or
               isinstance(n, gast.Attribute) and n.attr in _FRAME_READERS
               for n in gast.walk(fn))


def _captured(fn) -> set[str]:
    """Names read inside the function's nested defs, lambdas and comprehensions: a closure
    reads a name's cell when it runs, possibly an iteration after it was made."""
    nested = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ListComp,
              gast.SetComp, gast.DictComp, gast.GeneratorExp)
    return {n.id for node in gast.walk(fn) if isinstance(node, nested) and node is not fn
            for n in gast.walk(node) if isinstance(n, gast.Name)}


def _loads(node) -> dict[str, int]:
    counts: dict[str, int] = {}
    for child in gast.walk(node):
        if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Load, gast.Del)):
            counts[child.id] = counts.get(child.id, 0) + 1
        elif isinstance(child, gast.AugAssign) and isinstance(child.target, gast.Name):
            counts[child.target.id] = counts.get(child.target.id, 0) + 1
    return counts


class ControlFlowTransformer(BoolValues, gast.NodeTransformer):
    """The rewrites of the module docstring; `and`/`or`/`not` and conditional expressions
    used as values: bool_values.py."""

    def __init__(self, sites: SiteTable, local_names: set[str] = frozenset()):
        self.sites = sites
        self.local_names = local_names
        self.counter = 0
        self.nested = False  # inside the function being converted (not the function itself)
        self.loops = 0  # loops around the node being visited
        self.function_loads: dict[str, int] = {}
        self.frame_read = False  # the function may read its locals by name (`locals()`...)
        self.captured: set[str] = set()  # names its closures read
        self.unbinds_nested = 0  # nested blocks after which a name may be unbound
        self.bound_before: dict[int, set] = {}  # top-level statement id -> names bound then

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
        self.function_loads = _loads(node)
        self.frame_read = _reads_frame(node)
        self.captured = _captured(node)
        self.bound_before = _bound_before(node)
        local_names = scope.local_names(node)
        self.generic_visit(node)
        if self.unbinds_nested:
            _report_unbound(node, local_names)
        return node

    def _unbind(self, names: list[str], node, unbinds_before: int) -> list:
        """`_unbind`'s statements after `node` (`unbinds_before`: the count of nested
        unbinds when its visit began: a block with one inside may find a name unbound)."""
        statements = _unbind(names, node, self.bound_before,
                             self.unbinds_nested != unbinds_before)
        if statements and id(node) not in self.bound_before:
            self.unbinds_nested += 1
        return statements

    def visit_Lambda(self, node):
        return node

    def _test(self, node, kind: str, raises_when: bool | None = None):
        """Hook a branch test; `and`/`or`/`not` get one hooked test per operand
        (`raises_when`: the outcome after which the branch raises, for a lone test)."""
        if isinstance(node, gast.BoolOp):
            node.values = [self._test(v, kind) for v in node.values]
            return node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            node.operand = self._test(node.operand, kind, None if raises_when is None
                                      else not raises_when)
            return node
        site = self.sites.new(kind, node, raises_when=raises_when)
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
        unbinds = self.unbinds_nested
        unbound_reads.check_reads(node, self.bound_before.get(id(node)))
        while isinstance(node.test, gast.UnaryOp) and isinstance(node.test.op, gast.Not) and \
                not (scope.escapes(node.body) or scope.escapes(node.orelse)):
            # (`if not tf.math.is_finite(loss): raise ...`: a graph tests the tensor itself;
            # `if not t: break` stays: an exit test, its `not` hooked by exit_tests.py)
            node.test = node.test.operand
            node.body, node.orelse = node.orelse or [gast.Pass()], node.body
        self._mark_test(node.test)
        self.generic_visit(node)
        if scope.escapes(node.body) or scope.escapes(node.orelse) or \
                isinstance(node.test, gast.BoolOp):
            node.test = self._test(node.test, "if", _raises_when(node))
            return node
        site = self.sites.new("if", node.test, raises_when=_raises_when(node))
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
                SITE=templates.constant(site), TEST=node.test, BOTH=both) + \
            self._unbind(names, node, unbinds)
        return templates.copy_location(new, node)

    def _visit_loop_body(self, node) -> None:
        self.loops += 1
        try:
            self.generic_visit(node)
        finally:
            self.loops -= 1

    def _live_after(self, loop_loads: dict[str, int]) -> list[str]:
        """Names the code after a loop may read: loaded outside it (any loaded inside it
        too when another loop repeats it)."""
        return sorted(n for n, count in self.function_loads.items()
                      if count > loop_loads.get(n, 0) or self.loops and n in loop_loads)

    def visit_For(self, node):
        unbinds = self.unbinds_nested
        unbound_reads.check_reads(node, self.bound_before.get(id(node)))
        continues.transform(node, self._fresh)
        loop_loads = _loads(node)
        read_first = liveness.inputs(node.body, liveness.targets(node.target))
        self._visit_loop_body(node)
        exit_if = _loop_exits(node)
        if scope.escapes(node.body) and exit_if is None:
            site = self.sites.new("for", node.iter)
            node.iter = templates.copy_location(templates.expression(
                f"{RUNTIME}.iterate(SITE, ITER)", SITE=templates.constant(site),
                ITER=node.iter), node.iter)
            return node
        site = self.sites.new("for", node.iter)
        names = _user_names(scope.bound_names(
            [gast.Assign(targets=[node.target], value=None)] + node.body))
        names += [n for n in _mutated_receivers(node.body, self.local_names) if n not in names]
        exit_args, extra = self._exit_arguments(exit_if, loop_loads, names, read_first)
        b, g, s = (self._fresh(k) for k in ("body", "get", "set"))
        predeclare, state_fns = self._state_functions(names, g, s)
        unpack = templates.statements("TARGET = janus__item", TARGET=node.target)
        body = self._closure(b, ["janus__item"], names, unpack + node.body)
        names_tuple = gast.Tuple(elts=[templates.constant(n) for n in names], ctx=gast.Load())
        new = predeclare + body + state_fns + templates.statements(
            f"{RUNTIME}.for_stmt(SITE, ITER, {b}, {g}, {s}, NAMES{exit_args})",
            SITE=templates.constant(site), ITER=node.iter, NAMES=names_tuple, **extra) + \
            self._unbind(names, node, unbinds) + node.orelse
        return templates.copy_location(new, node)

    def _exit_arguments(self, exit_ifs, loop_loads, names, read_first) -> tuple[str, dict]:
        """The `exit, live, fresh` arguments of a loop's hook (each `if t: break` becomes
        `return True`; the exit site of several is one of kind "exits" whose parts are
        theirs), or nothing for a loop without one. `fresh`: the names the loop binds whose
        value no iteration reads before binding it and nothing after the loop reads (a
        tf.while_loop need not carry them)."""
        if exit_ifs is None:
            return "", {}
        exit_sites = []
        for exit_if in exit_ifs:
            exit_if.body = [gast.Return(value=gast.Constant(value=True, kind=None))]
            site, exit_if.test = exit_tests.transform(exit_if.test, self.sites)
            exit_sites.append(site)
        exit_site = exit_sites[0] if len(exit_sites) == 1 else \
            self.sites.new("exits", None, parts=tuple(exit_sites))
        live_names = _user_names(self._live_after(loop_loads))
        fresh_names = [] if self.frame_read else \
            [n for n in names if n not in read_first and n not in live_names and
             n not in self.captured]
        live, fresh = (gast.Tuple(elts=[templates.constant(n) for n in group], ctx=gast.Load())
                       for group in (live_names, fresh_names))
        return ", EXIT, LIVE, FRESH", dict(EXIT=templates.constant(exit_site), LIVE=live,
                                           FRESH=fresh)

    def visit_While(self, node):
        unbinds = self.unbinds_nested
        unbound_reads.check_reads(node, self.bound_before.get(id(node)))
        continues.transform(node, self._fresh)
        loop_loads = _loads(node)
        read_first = liveness.reads(node.test) | liveness.inputs(node.body, set())
        written = exit_tests.user_source(node.test)  # (the site's text and line)
        # (`while (m := f()) < 10:` binds `m` in the function: not in a closure of its own)
        functional_test = thunkable([node.test])
        self._mark_test(node.test)
        self._visit_loop_body(node)
        node.test = self._combined_test(node.test)
        exit_if = _loop_exits(node)
        if (not scope.escapes(node.body) or exit_if is not None) and not node.orelse and \
                functional_test:
            site = self.sites.new("while", written, parts=tuple(exit_tests.parts(node.test)))
            names = _user_names(scope.bound_names(node.body))
            names += [n for n in _mutated_receivers(node.body, self.local_names) if n not in names]
            exit_args, extra = self._exit_arguments(exit_if, loop_loads, names, read_first)
            c, b, g, s = (self._fresh(k) for k in ("test", "body", "get", "set"))
            predeclare, state_fns = self._state_functions(names, g, s)
            test_fn = templates.statements(f"def {c}():\n    return TEST", TEST=node.test)
            names_tuple = gast.Tuple(elts=[templates.constant(n) for n in names], ctx=gast.Load())
            new = predeclare + test_fn + self._closure(b, [], names, node.body) + state_fns + \
                templates.statements(
                    f"{RUNTIME}.while_stmt(SITE, {c}, {b}, {g}, {s}, NAMES{exit_args})",
                    SITE=templates.constant(site), NAMES=names_tuple, **extra) + \
                self._unbind(names, node, unbinds)
            return templates.copy_location(new, node)
        site = self.sites.new("while", node.test)
        node.test = templates.copy_location(templates.expression(
            f"{RUNTIME}.loop_test(SITE, TEST)", SITE=templates.constant(site),
            TEST=node.test), node.test)
        return node

    def _combined_test(self, test):
        """`while a and b:` -> `while janus__.both(lambda: janus__.test(1, a), lambda:
        janus__.test(2, b)):` (exit_tests.functional): each operand a test of its own, in
        Python's order and short-circuit, so a graph specializes each (`a and b` asked a
        tensor operand's truth in the graph: a failed trace, the largest class of failed
        generations over the fuzz corpus)."""
        if not (isinstance(test, gast.BoolOp) or
                isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not)):
            return test
        hooked = self._test(test, "while")
        return exit_tests.functional(hooked) if exit_tests.is_exit_test(hooked) else test

    def visit_Assert(self, node):
        self._mark_test(node.test)
        self.generic_visit(node)
        node.test = self._test(node.test, "assert")
        return node
