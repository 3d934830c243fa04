"""Heap access, calls and free names become runtime hooks.

    obj.a            ->  janus__.ld_attr(obj, 'a')
    obj.a = v        ->  janus__.st_attr(obj, 'a', v)
    x[k]             ->  janus__.ld_item(x, k)
    x[k] = v         ->  janus__.st_item(x, k, v)
    x += v           ->  x = janus__.aug('+=', x, v)
    a is b           ->  janus__.identical(a, b)    (`is not`: not janus__.identical)
    f(a, k=b)        ->  janus__.call(site, f, a, k=b)
    W  (a global)    ->  janus__.ld_global('W', W)

so that a runtime sees every read and write of the Python heap: the profiler
records them, the graph generator turns them into guarded graph inputs and
deferred write-backs.
"""
from __future__ import annotations

import inspect

import gast

from janus.errors import ConversionError
from janus.transform import scope, templates, user_frames
from janus.transform.control_flow import OwnBody
from janus.transform.sites import SiteTable
from janus.transform.templates import RUNTIME

_AUG_OPS = {gast.Add: "+=", gast.Sub: "-=", gast.Mult: "*=", gast.Div: "/=",
            gast.FloorDiv: "//=", gast.Mod: "%=", gast.Pow: "**=", gast.MatMult: "@=",
            gast.BitAnd: "&=", gast.BitOr: "|=", gast.BitXor: "^=", gast.LShift: "<<=",
            gast.RShift: ">>="}
_NOT_CONVERTED_CALLS = {"super", "locals", "globals", "vars", "dir"}
_FRAME_READS = {"locals", "vars", "dir"}
_UNSUPPORTED_CALLS = {"eval": "eval() is not converted", "exec": "exec() is not converted"}


def _hook(template: str, node, **parts):
    return templates.copy_location(templates.expression(template, **parts), node)


def _runtime_attribute(node) -> bool:
    return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
        node.value.id == RUNTIME


class EffectsTransformer(OwnBody):
    def __init__(self, sites: SiteTable, local_names: set[str], free_names: set[str],
                 namespace: dict | None = None):
        self.sites = sites
        self.namespace = namespace or {}  # the function's globals (`_inspect.stack()`)
        self.local_names = local_names
        self.free_names = free_names  # closure variables of the user's function
        self.temp_counter = 0
        self.depth = -1  # >0 inside nested user functions/lambdas (the function itself is 0)
        self.lambda_names: list[set] = []  # names each enclosing lambda binds itself

    def _temp(self) -> str:
        self.temp_counter += 1
        return f"janus__tmp_{self.temp_counter}"

    @staticmethod
    def _dropped(temps: list, anchor) -> list:
        """`T = None` for each temporary once stored: Python's `a[i] = v` keeps `v` only
        in `a`; a temporary kept it in the frame until the call ended (a replaced value's
        `__del__` ran late: F443)."""
        return templates.copy_location(templates.statements(
            "".join(f"{temp} = None\n" for temp in temps)), anchor)

    # -- nested scopes: names there are not the function's own (a nested `def`: OwnBody)
    def visit_Lambda(self, node):
        # the lambda's own names (parameters, comprehension targets) are not the function's;
        # every other name it reads is read like in the function body (a global through
        # `ld_global`, so that a trace sees `LOG` in `lambda v: LOG.append(v)` as heap)
        bound = {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and
                 not isinstance(n.ctx, gast.Load)}
        self.lambda_names.append(bound)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        self.lambda_names.pop()
        return node

    # -- loads
    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load) or node.id.startswith("janus__"):
            return node
        if self.depth and (len(self.lambda_names) != self.depth or
                           any(node.id in names for names in self.lambda_names)):
            return node
        if node.id in self.local_names:
            return node
        if node.id in self.free_names:
            return _hook(f"{RUNTIME}.ld_free(NAME, VALUE)", node,
                         NAME=templates.constant(node.id), VALUE=node)
        if scope.is_builtin(node.id):
            return node
        return _hook(f"{RUNTIME}.ld_global(NAME, VALUE)", node,
                     NAME=templates.constant(node.id), VALUE=node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Name) and node.value.id == RUNTIME:
            return node
        if isinstance(node.ctx, gast.Load):
            return _hook(f"{RUNTIME}.ld_attr(OBJ, NAME)", node, OBJ=node.value,
                         NAME=templates.constant(node.attr))
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, gast.Load):
            return _hook(f"{RUNTIME}.ld_item(OBJ, KEY)", node, OBJ=node.value,
                         KEY=_slice_expr(node.slice))
        return node

    def visit_Call(self, node):
        func = node.func
        if _reads_frame(func, self.local_names, self.namespace):
            raise ConversionError("reads a frame (`sys._getframe`, `inspect.currentframe`, "
                                  "`inspect.stack`...): converted, its frame would be "
                                  "janus's; it runs as the Python it is", lineno=node.lineno)
        if isinstance(func, gast.Name) and func.id in _UNSUPPORTED_CALLS and \
                func.id not in self.local_names:
            raise ConversionError(_UNSUPPORTED_CALLS[func.id], lineno=node.lineno)
        if isinstance(func, gast.Name) and (func.id in _NOT_CONVERTED_CALLS and not (
                func.id in ("vars", "dir") and node.args) or func.id.startswith("janus__")):
            # (`vars(obj)` / `dir(obj)` read no frame: hooked as calls, janus refuses a
            # heap object's __dict__ there, container_writes.py)
            self.generic_visit(node)
            if func.id in _FRAME_READS and not node.args and func.id not in self.local_names:
                # (they read the frame: seen without janus's own names)
                return _hook(f"{RUNTIME}.user_frame(CALL)", node, CALL=node)
            return node
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id == RUNTIME:
            self.generic_visit(node)
            return node
        site = self.sites.new("call", node.func)
        self.generic_visit(node)
        node.args = [gast.Constant(value=site, kind=None), node.func] + node.args
        node.func = templates.expression(f"{RUNTIME}.call")
        return templates.copy_location(node, node)

    def visit_Compare(self, node):
        """`a is b` of two values (not `x is None`): a graph's tensors may not keep the
        identities Python's do (graphgen/identity.py); `b is True` of a bool janus feeds
        compares its value (F240)."""
        self.generic_visit(node)
        operands = (node.left, node.comparators[0])
        if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.Is, gast.IsNot)) or \
                any(isinstance(v, gast.Constant) and type(v.value) is not bool or
                    _runtime_attribute(v) for v in operands):
            return node  # (`x is None`, janus's own `v is janus__.UNDEFINED`; not `b is True`)
        call = _hook(f"{RUNTIME}.identical(A, B)", node, A=node.left, B=node.comparators[0])
        if isinstance(node.ops[0], gast.IsNot):
            call = templates.copy_location(gast.UnaryOp(op=gast.Not(), operand=call), node)
        return call

    # -- stores
    def visit_Assign(self, node):
        self.generic_visit(node)
        if all(_plain_target(t) for t in node.targets):
            return node
        if len(node.targets) == 1 and _simple_store(node.targets[0]):
            # `self.a = v`: the object is a plain name, so no temporary is needed
            return self._assign(node.targets[0], node.value, node)
        temp = self._temp()
        out = templates.copy_location(templates.statements("T = V", T=temp, V=node.value), node)
        for target in node.targets:
            out += self._assign(target, templates.name(temp), node)
        return out + self._dropped([temp], node)

    def _assign(self, target, value, anchor) -> list:
        if _plain_target(target):
            stmt = gast.Assign(targets=[target], value=value, type_comment=None)
            return [templates.copy_location(stmt, anchor)]
        if isinstance(target, gast.Attribute):
            return templates.copy_location(templates.statements(
                f"{RUNTIME}.st_attr(OBJ, NAME, V)", OBJ=target.value,
                NAME=templates.constant(target.attr), V=value), anchor)
        if isinstance(target, gast.Subscript):
            return templates.copy_location(templates.statements(
                f"{RUNTIME}.st_item(OBJ, KEY, V)", OBJ=target.value,
                KEY=_slice_expr(target.slice), V=value), anchor)
        if isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                raise ConversionError("starred assignment to attributes or items is not "
                                      "converted", lineno=anchor.lineno)
            temps = [self._temp() for _ in target.elts]
            unpack = gast.Assign(
                targets=[gast.Tuple(elts=[templates.name(t, store=True) for t in temps],
                                    ctx=gast.Store())], value=value, type_comment=None)
            out = [templates.copy_location(unpack, anchor)]
            for elt, temp in zip(target.elts, temps):
                out += self._assign(elt, templates.name(temp), anchor)
            return out + self._dropped(temps, anchor)
        raise ConversionError(f"assignment to {type(target).__name__} is not converted",
                              lineno=anchor.lineno)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        op = templates.constant(_AUG_OPS[type(node.op)])
        target = node.target
        if isinstance(target, gast.Name):
            load = templates.name(target.id)
            new = templates.statements(f"T = {RUNTIME}.aug(OP, X, V)", T=target.id, OP=op,
                                       X=load, V=node.value)
        elif isinstance(target, gast.Attribute):
            obj = self._temp()
            new = templates.statements(
                f"O = OBJ\n{RUNTIME}.st_attr(O, NAME, {RUNTIME}.aug(OP, "
                f"{RUNTIME}.ld_attr(O, NAME), V))\nO = None", O=obj, OBJ=target.value,
                NAME=templates.constant(target.attr), OP=op, V=node.value)
        elif isinstance(target, gast.Subscript):
            obj, key = self._temp(), self._temp()
            new = templates.statements(
                f"O = OBJ\nK = KEY\n{RUNTIME}.st_item(O, K, {RUNTIME}.aug(OP, "
                f"{RUNTIME}.ld_item(O, K), V))\nO = None\nK = None", O=obj, K=key,
                OBJ=target.value, KEY=_slice_expr(target.slice), OP=op, V=node.value)
        else:
            raise ConversionError("unsupported augmented assignment", lineno=node.lineno)
        return templates.copy_location(new, node)

    def visit_With(self, node):
        """`with E as v:` enters `janus__.ctx(E)`: a trace refuses context managers whose
        `__enter__`/`__exit__` are the program's Python (they would run once, while
        tracing, outside janus's view of the heap)."""
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = _hook(f"{RUNTIME}.ctx(E)", item.context_expr,
                                      E=item.context_expr)
        return node

    def visit_Delete(self, node):
        self.generic_visit(node)
        out = []
        for target in node.targets:
            if isinstance(target, gast.Subscript):
                out += templates.statements(f"{RUNTIME}.del_item(OBJ, KEY)", OBJ=target.value,
                                            KEY=_slice_expr(target.slice))
            elif isinstance(target, gast.Attribute):
                out += templates.statements(f"{RUNTIME}.del_attr(OBJ, NAME)", OBJ=target.value,
                                            NAME=templates.constant(target.attr))
            else:
                out.append(gast.Delete(targets=[target]))
        return templates.copy_location(out, node)


def _reads_frame(func, local_names: set, namespace: dict) -> bool:
    """`sys._getframe()`, `inspect.currentframe()`, `inspect.stack()`, `_inspect.stack()`,
    `traceback.extract_stack()`, `from inspect import stack` (user_frames.py): by name,
    or by what the name is in the function's globals now."""
    if isinstance(func, gast.Name):
        return func.id not in local_names and (
            func.id in user_frames.FRAME_READS or
            user_frames.reads_frames(namespace.get(func.id)))
    if not isinstance(func, gast.Attribute):
        return False
    if func.attr in user_frames.FRAME_READS:
        return True
    if func.attr not in ("stack", "trace") or not isinstance(func.value, gast.Name) or \
            func.value.id in local_names:
        return False
    return func.value.id == "inspect" or namespace.get(func.value.id) is inspect


def _simple_store(target) -> bool:
    """An attribute or item store whose object (and key) are plain names or constants."""
    if isinstance(target, gast.Attribute):
        return isinstance(target.value, gast.Name)
    if isinstance(target, gast.Subscript):
        return isinstance(target.value, gast.Name) and \
            isinstance(target.slice, (gast.Name, gast.Constant))
    return False


def _plain_target(target) -> bool:
    if isinstance(target, gast.Name):
        return True
    if isinstance(target, (gast.Tuple, gast.List)):
        return all(_plain_target(e) for e in target.elts)
    if isinstance(target, gast.Starred):
        return _plain_target(target.value)
    return False


def _slice_expr(node):
    """A subscript's slice as an ordinary expression (`a:b` -> `slice(a, b, None)`)."""
    if isinstance(node, gast.Slice):
        parts = [p if p is not None else templates.constant(None)
                 for p in (node.lower, node.upper, node.step)]
        return gast.Call(func=templates.name("slice"), args=parts, keywords=[])
    if isinstance(node, gast.Tuple) and any(isinstance(e, gast.Slice) for e in node.elts):
        return gast.Tuple(elts=[_slice_expr(e) for e in node.elts], ctx=gast.Load())
    return node
