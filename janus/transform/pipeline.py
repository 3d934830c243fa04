"""The conversion pipeline: user function -> hooked function, ready for a runtime."""
from __future__ import annotations

import ast
import dataclasses
import threading
import types

import astunparse
import gast

from janus import source as source_mod
from janus.errors import ConversionError
from janus.transform import scope, templates
from janus.transform.control_flow import ControlFlowTransformer
from janus.transform.effects import EffectsTransformer
from janus.transform.sites import SiteTable
from janus.transform.templates import RUNTIME

PASSES = (
    "control_flow: if/for/while -> janus__.if_stmt / for_stmt / test / iterate / loop_test",
    "effects: attributes, items, calls, augmented assignment, free names -> janus__ hooks",
)


@dataclasses.dataclass
class ConvertedFunction:
    """A user function rewritten into hooked form.

    `instantiate(runtime)` gives a Python function with the user's signature that
    runs the converted body against `runtime`.
    """

    original: types.FunctionType
    source: source_mod.SourceInfo
    sites: SiteTable
    code: str  # the generated Python source, for humans
    factory: types.FunctionType
    freevars: tuple[str, ...]

    def __post_init__(self):
        self._instances: dict[int, types.FunctionType] = {}

    @property
    def qualname(self) -> str:
        return self.source.qualname

    def instantiate(self, runtime) -> types.FunctionType:
        fn = self._instances.get(id(runtime))
        if fn is None:
            closure = self.original.__closure__ or ()
            try:
                cells = [c.cell_contents for c in closure]
            except ValueError:
                raise ConversionError("a closure variable is not bound yet",
                                      function=self.qualname, filename=self.source.filename,
                                      lineno=self.source.first_line) from None
            fn = self.factory(runtime, *cells)
            fn.__defaults__ = self.original.__defaults__
            fn.__kwdefaults__ = self.original.__kwdefaults__
            fn.__janus_converted__ = self
            self._instances[id(runtime)] = fn
        return fn


# Keyed by the code object's identity: code objects compare equal by content, so two
# functions of the same name, body and first line in different files (or exec'd source)
# would otherwise share one conversion, with the other's globals.
_cache: dict[int, tuple[types.CodeType, ConvertedFunction | ConversionError]] = {}
_lock = threading.Lock()


def convert(fn) -> ConvertedFunction:
    """Convert `fn` (cached per code object). Raises ConversionError."""
    fn = source_mod.unwrap(fn)
    if not isinstance(fn, types.FunctionType):
        raise ConversionError(f"{fn!r} is not a Python function")
    code = fn.__code__
    with _lock:
        entry = _cache.get(id(code))
    cached = entry[1] if entry is not None and entry[0] is code else None
    if cached is None:
        try:
            cached = _convert(fn)
        except ConversionError as exc:
            cached = exc.located(fn.__qualname__, code.co_filename, code.co_firstlineno)
        with _lock:
            _cache[id(code)] = (code, cached)
    if isinstance(cached, ConversionError):
        raise cached
    if cached.original is not fn:  # same code, other closure (e.g. a nested def)
        cached = dataclasses.replace(cached, original=fn)
    return cached


def _convert(fn: types.FunctionType) -> ConvertedFunction:
    node, info = source_mod.parse_function(fn)
    sites = SiteTable(info.qualname, info.filename)
    freevars = tuple(fn.__code__.co_freevars)
    for child in gast.walk(node):
        if isinstance(child, (gast.Global, gast.Nonlocal)):
            raise ConversionError(f"`{type(child).__name__.lower()} {', '.join(child.names)}` "
                                  "rebinds a variable outside the function, which a graph cannot "
                                  "do on each call", function=info.qualname,
                                  filename=info.filename, lineno=child.lineno)
        if isinstance(child, gast.Try) and child.handlers:
            raise ConversionError("try/except is not converted (an error raised inside a graph "
                                  "cannot be caught where Python would catch it)",
                                  function=info.qualname, filename=info.filename,
                                  lineno=child.lineno)
    local_names = scope.local_names(node)
    try:
        node = ControlFlowTransformer(sites, local_names).visit(node)
        node = EffectsTransformer(sites, local_names, set(freevars)).visit(node)
    except ConversionError as exc:
        raise exc.located(info.qualname, info.filename, exc.lineno or info.first_line)
    # Defaults stay the original's objects (set on the instance), not re-evaluated.
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kw_defaults)
    factory_params = [RUNTIME] + list(freevars)
    factory = templates.statements(
        f"def janus__factory({', '.join(factory_params)}):\n    FN\n    return {node.name}\n",
        FN=[node])[0]
    factory.body[0] = node
    module = gast.Module(body=[factory], type_ignores=[])
    tree = gast.gast_to_ast(module)
    _fill_locations(tree, info.first_line)
    code_text = astunparse.unparse(tree)
    namespace: dict = {}
    exec(compile(tree, info.filename, "exec"), fn.__globals__, namespace)
    return ConvertedFunction(fn, info, sites, code_text, namespace["janus__factory"], freevars)


def _fill_locations(tree: ast.AST, default_line: int) -> None:
    """Nodes made by passes inherit the location of their nearest located ancestor."""
    def fill(node, lineno, col):
        if "lineno" in node._attributes:
            if getattr(node, "lineno", None) is None:
                node.lineno, node.col_offset = lineno, col
            if getattr(node, "end_lineno", None) is None:
                node.end_lineno, node.end_col_offset = node.lineno, node.col_offset
            lineno, col = node.lineno, node.col_offset
        for child in ast.iter_child_nodes(node):
            fill(child, lineno, col)
    fill(tree, default_line, 0)
