"""The conversion pipeline: user function -> hooked function, ready for a runtime."""
from __future__ import annotations

import ast
import copy
import dataclasses
import threading
import types
import weakref

import gast

from janus import source as source_mod
from janus.errors import ConversionError, detached
from janus.transform import autograph_callbacks, global_stores, scope, templates, user_frames
from janus.transform.control_flow import ControlFlowTransformer
from janus.transform.effects import EffectsTransformer
from janus.transform.sites import SiteTable
from janus.transform.templates import RUNTIME
from janus.transform.text import TextTransformer

PASSES = (
    "control_flow: if/for/while -> janus__.if_stmt / for_stmt / test / iterate / loop_test; "
    "and/or/not/`x if t else y` as values -> janus__.or_value / and_value / not_value / "
    "if_value (bool_values.py)",
    "effects: attributes, items, calls, augmented assignment, free names -> janus__ hooks",
    "text: f-strings and `%` -> janus__.text / percent (text.py)",
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
    factory: types.FunctionType  # holds the converted code (see `instantiate`)
    freevars: tuple[str, ...]

    def __post_init__(self):
        self._instances: dict[int, types.FunctionType] = {}

    @property
    def qualname(self) -> str:
        return self.source.qualname

    @property
    def key(self) -> str:
        """Its name in profiles and plans: the qualified name and where the def starts.
        Functions sharing a qualified name (same-named nested defs in two branches,
        helpers of two modules) never share site records; closures of one def (one
        code, one site table) do."""
        return f"{self.source.qualname}@{self.source.filename}:{self.source.first_line}"

    def instantiate(self, runtime) -> types.FunctionType:
        """The converted function bound to `runtime`, closing over the original's own
        cells (live: a rebinding in the enclosing function is seen) and globals."""
        closure = self.original.__closure__
        key = id(runtime)
        fn = self._instances.get(key) if not closure else None
        if fn is not None:  # (the original's defaults as they are now: they may be rebound)
            fn.__defaults__ = self.original.__defaults__
            fn.__kwdefaults__ = self.original.__kwdefaults__
            return fn
        code = self.factory.__code__
        cells = []
        names = self.original.__code__.co_freevars
        for name in code.co_freevars:
            if name == RUNTIME:
                cells.append(types.CellType(runtime))
            else:  # the compiler made it free only because the original has it free
                cells.append(closure[names.index(name)])
        fn = types.FunctionType(code, self.original.__globals__, self.original.__name__,
                                self.original.__defaults__, tuple(cells))
        fn.__kwdefaults__ = self.original.__kwdefaults__
        fn.__annotations__ = self.original.__annotations__
        fn.__qualname__ = self.original.__qualname__
        fn.__module__ = self.original.__module__
        fn.__janus_converted__ = self
        if not closure:
            self._instances[key] = fn
        return fn


# Keyed by the code object's identity: code objects compare *equal* across modules when
# their text is the same, and each conversion belongs to one code object.
_cache: dict[int, tuple[types.CodeType, ConvertedFunction | ConversionError]] = {}
_lock = threading.Lock()


def convert(fn) -> ConvertedFunction:
    """Convert `fn` (cached per code object). Raises ConversionError."""
    fn = source_mod.unwrap(fn)
    if not isinstance(fn, types.FunctionType):
        raise source_mod.no_source(fn)
    code = fn.__code__
    with _lock:
        entry = _cache.get(id(code))
        cached = entry[1] if entry is not None and entry[0] is code else None
    if cached is None:
        try:
            cached = _convert(fn)
        except ConversionError as exc:
            cached = detached(exc.located(fn.__qualname__, code.co_filename,
                                          code.co_firstlineno))
        with _lock:
            _cache[id(code)] = (code, cached)
    if isinstance(cached, ConversionError):  # (a copy: raising the cached one would keep
        raise copy.copy(cached)  # the frames it passed, its callers' arguments: F397)
    if cached.original is not fn:  # same code, other closure (e.g. a nested def)
        cached = dataclasses.replace(cached, original=fn)
    return cached


def _convert(fn: types.FunctionType) -> ConvertedFunction:
    node, info = source_mod.parse_function(fn)
    sites = SiteTable(info.qualname, info.filename)
    freevars = tuple(fn.__code__.co_freevars)
    reserved = _reserved_names(fn.__code__)
    if reserved:
        raise ConversionError(f"uses the name `{reserved[0]}` (names starting with "
                              f"`{RUNTIME}` are janus's own)", function=info.qualname,
                              filename=info.filename, lineno=info.first_line)
    try:  # (`global X` stores: runtime calls, before control flow sees them)
        globals_declared = global_stores.declared(node)
        if globals_declared:
            node = global_stores.GlobalStores(globals_declared).visit(node)
    except ConversionError as exc:
        raise exc.located(info.qualname, info.filename, exc.lineno or info.first_line)
    for child in scope.walk_own_scope(node.body):  # nested defs are converted on their own
        if isinstance(child, gast.Try) and child.handlers:
            raise ConversionError("try/except is not converted (an error raised inside a graph "
                                  "cannot be caught where Python would catch it)",
                                  function=info.qualname, filename=info.filename,
                                  lineno=child.lineno)
    local_names = scope.local_names(node)
    try:
        node = ControlFlowTransformer(sites, local_names).visit(node)
        node = EffectsTransformer(sites, local_names, set(freevars), fn.__globals__).visit(node)
        node = TextTransformer().visit(node)
    except ConversionError as exc:
        raise exc.located(info.qualname, info.filename, exc.lineno or info.first_line)
    drop_defaults_and_annotations(node)
    code_text = _render(node, freevars, info.first_line)
    # Compiled under a name no user code can use: the function's own name inside its body
    # must stay what it is in the original (a global, say, for a recursive helper).
    node.name = _CODE_NAME
    tree = _module(node, freevars)
    fill_locations(tree, info.first_line)
    try:
        compiled = source_mod.compile_tree(tree, info.filename)
        namespace: dict = {}
        exec(compiled, {}, namespace)  # defines the factory only; runs no user code
        code = namespace["janus__factory"](*([None] * (1 + len(freevars)))).__code__
    except Exception as exc:  # noqa: BLE001 - janus's own code: never the user's error
        raise ConversionError(f"janus generated code that does not compile "
                              f"({type(exc).__name__}: {exc})", function=info.qualname,
                              filename=info.filename, lineno=info.first_line) from exc
    code = _requalified(code, f"janus__factory.<locals>.{_CODE_NAME}", fn.__qualname__)
    code = _user_named(code.replace(co_name=fn.__code__.co_name), fn.__code__.co_name)
    _remember_nested(code)
    autograph_callbacks.remember(fn.__code__, code)
    holder = types.FunctionType(code, fn.__globals__, fn.__name__, None,
                                tuple(types.CellType(None) for _ in code.co_freevars))
    return ConvertedFunction(fn, info, sites, code_text, holder, freevars)


_CODE_NAME = f"{RUNTIME}fn"


_nested_codes: "weakref.WeakSet[types.CodeType]" = weakref.WeakSet()


def drop_defaults_and_annotations(node: gast.FunctionDef) -> None:
    """Strip `node`'s default values and annotations: a compiled copy keeps the original
    function's objects (its `__defaults__`... set on it), not evaluated again."""
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kw_defaults)
    node.returns = None
    for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs + \
            [a for a in (node.args.vararg, node.args.kwarg) if a is not None]:
        arg.annotation = None


def _remember_nested(code: types.CodeType) -> None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _nested_codes.add(const)
            _remember_nested(const)


def made_by_converted_code(fn) -> bool:
    """Whether `fn` is a function (a nested def, a lambda) that converted code created:
    run in a trace, its closure holds the trace's values."""
    return isinstance(fn, types.FunctionType) and fn.__code__ in _nested_codes


def leave_to_janus(args: tuple, kwargs: dict) -> None:
    """Mark the functions converted code made among a library call's arguments (`ds.map(
    lambda b: b * x)`) as AutoGraph's own: AutoGraph, run on them by `tf.data`, would
    parse their source again, find no `janus__` in it and warn (a warning plain code does
    not give) before running them as they are, as it now does at once."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, types.FunctionType) and made_by_converted_code(value) and \
                not hasattr(value, "autograph_info__"):
            value.autograph_info__ = {}


def lambda_traced_as_is(fn) -> bool:
    """Whether `fn` is a lambda converted code made: its reads are hooked, it is traced as
    it is. Any other lambda (made outside converted code: `self.lr = lambda: 0.1 * 0.5 **
    self.step` in `__init__`, `lambda s: s.count * 2`) would have its reads of the heap,
    of its closure and of globals folded into the graph unguarded: it is converted, as the
    `def` it stands for (source.parse_function)."""
    return isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>" and \
        made_by_converted_code(fn)


def _requalified(code: types.CodeType, old: str, new: str) -> types.CodeType:
    """`code` and the code nested in it with qualified names under `new` instead of `old`
    (a nested def of the converted code is `f.<locals>.inner`, as in the original, also
    inside a loop body or branch janus made a function of)."""
    def rename(text):
        if not (text == old or text.startswith(old + ".")):
            return text
        parts = (new + text[len(old):]).split(".<locals>.")
        kept = [p for p in parts[:-1] if not p.startswith(RUNTIME)] + parts[-1:]
        return ".<locals>.".join(kept)
    consts = tuple(_requalified(c, old, new) if isinstance(c, types.CodeType) else
                   rename(c) if isinstance(c, str) else c for c in code.co_consts)
    if hasattr(code, "co_qualname"):
        return code.replace(co_consts=consts, co_qualname=rename(code.co_qualname))
    return code.replace(co_consts=consts)


def _user_named(code: types.CodeType, name: str) -> types.CodeType:
    """`code` with the functions janus made of its blocks (branches, loop bodies) named as
    the user's function: a logging record's funcName, a traceback's line name the user's
    function, as in plain Python (their qualified names still say janus's: F231)."""
    if not hasattr(code, "co_qualname"):
        return code  # (Python 3.10: they are told apart by their names)
    consts = tuple(_user_named(c, name) if isinstance(c, types.CodeType) and
                   user_frames.is_block(c) else c for c in code.co_consts)
    if user_frames.is_block(code):
        return code.replace(co_consts=consts, co_name=name)
    return code.replace(co_consts=consts)


def _reserved_names(code: types.CodeType) -> list[str]:
    """Names in `code` (and code nested in it) that could collide with janus's own."""
    names = [n for n in code.co_varnames + code.co_names + code.co_freevars + code.co_cellvars
             if n.startswith(RUNTIME)]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _reserved_names(const)
    return names


def _module(node: gast.FunctionDef, freevars: tuple[str, ...]) -> ast.Module:
    """`def janus__factory(janus__, <free variables>): <node>; return <node.name>`: the
    factory only gives the converted code its free variables; `instantiate` replaces
    them by the runtime's and the original function's own cells."""
    factory_params = [RUNTIME] + list(freevars)
    factory = templates.statements(
        f"def janus__factory({', '.join(factory_params)}):\n    FN\n    return {node.name}\n",
        FN=[node])[0]
    factory.body[0] = node
    return gast.gast_to_ast(gast.Module(body=[factory], type_ignores=[]))


def _render(node: gast.FunctionDef, freevars: tuple[str, ...], first_line: int) -> str:
    tree = _module(node, freevars)
    fill_locations(tree, first_line)
    return ast.unparse(tree)


def fill_locations(tree: ast.AST, default_line: int) -> None:
    """Nodes made by passes inherit the location of their nearest located ancestor."""
    _fill(tree, default_line, 0)


def _fill(node, lineno: int, col: int) -> None:
    if "lineno" in node._attributes:
        if getattr(node, "lineno", None) is None:
            node.lineno, node.col_offset = lineno, col
        if getattr(node, "end_lineno", None) is None:
            node.end_lineno, node.end_col_offset = node.lineno, node.col_offset
        lineno, col = node.lineno, node.col_offset
    for child in ast.iter_child_nodes(node):
        _fill(child, lineno, col)
