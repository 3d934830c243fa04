"""The Python state a function of the program's reads when janus cannot convert it.

Library code runs some of the program's functions as they are, once, while janus traces
(a function behind `@tf.custom_gradient` or `tf.recompute_grad`, a Keras Loss's `call`, a
Metric's `update_state`/`result` under `metric(y, p)`): the values they read are folded
into the graph and their Python writes made once. Their bytecode says what they read:

    GRL_SCALE = 0.3                   a global holding an immutable number: guarded by
    return -dy * GRL_SCALE            value (`G[...] == 0.3`), the graph keeps serving
    lam (a closure cell), args.lam    the same (a cell; an attribute chain of plain objects)
    self.gamma (a Loss's `call`)      an attribute of the hook's object: guarded by value
                                      through the object's source
    self.total.assign_add(...)        a variable (the graph reads it when it runs): nothing
    G_LIST, self.hist, cfg (whole)    data janus cannot check by value: refused
    self.calls += 1, global n         a Python write (it would be made once): refused
    HP.alpha (a class of the program's) an attribute of a class: guarded by value
    def act(x, cfg=CFG): cfg["a"]     a parameter's default: guarded by value if immutable
    print, pprint, logging.info       output (it would be made once): refused, as are a
    os.environ, sys.stdout            library module's containers and streams
`reason(...)` is "" when a call may be traced (the profiler asks with no tracer: a
guardable read is no refusal there); given the tracer it also adds the guards.
"""
from __future__ import annotations

import builtins
import types

import tensorflow as tf

from janus.fallback.heap import MISSING
from janus.graphgen.guards import EAGER_TENSOR
from janus.graphgen import held_numbers, made_closures, python_gradients
from janus.graphgen.held_bytecode import cached_by_identity, instructions
from janus.graphgen.sources import Source, closure, global_
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import GraphValueInPython
from janus.transform.templates import RUNTIME
from janus.transform.runtime import is_user_class, is_user_code, is_user_module

_IMMUTABLE = (bool, int, float, complex, str, bytes, type(None))
_CODE_VALUES = (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType,
                types.MethodType)
_WRITES = {"STORE_ATTR": "writes attribute", "DELETE_ATTR": "deletes attribute",
           "STORE_GLOBAL": "writes global", "DELETE_GLOBAL": "deletes global"}
_REFLECTION = frozenset({"setattr", "delattr", "vars", "globals", "locals", "exec", "eval",
                         "__dict__", "__setattr__", "__delattr__"})
"""Names through which a function reads or writes state its bytecode does not name."""
_OUTPUT = frozenset({("builtins", "print"), ("builtins", "input"), ("builtins", "open"),
                     ("builtins", "breakpoint"), ("pprint", "pprint"), ("pprint", "pp"),
                     ("warnings", "warn"), ("warnings", "warn_explicit"), ("os", "system"),
                     ("traceback", "print_exc"), ("traceback", "print_stack"),
                     *(("logging", n) for n in ("debug", "info", "warning", "warn", "error",
                                                "exception", "critical", "log"))})
"""Functions making output, by (module, name): made once, while tracing."""
_PLAIN_RECORDS = frozenset({"argparse.Namespace", "types.SimpleNamespace"})
"""Library records whose attributes are plain instance data (`args.lam`)."""
_SELF = "self"
_MAX_FUNCTIONS = 32  # (helpers followed from one hook: enough for research code)


def immutable(value) -> bool:
    """A value a guard checks by value: a Python scalar or text, a tuple of them."""
    if type(value) is tuple:
        return all(immutable(v) for v in value)
    return type(value) in _IMMUTABLE


class Chain:
    """`root.a.b` read in a function: root is ("global", name), ("cell", name) or
    ("self",); `method`: its last name is a method called (never changed: cached with
    its code's reads)."""

    def __init__(self, root: tuple, attrs: tuple, method: bool):
        self.root, self.attrs, self.method = root, attrs, method


def output(value) -> bool:
    """`value` is a function making output (`print`, `pprint.pprint`, `logging.info`)."""
    if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return False
    module = getattr(value, "__module__", None) or "builtins"
    return (module, getattr(value, "__name__", "")) in _OUTPUT


def _library_data(value) -> bool:
    """A library module's value that changes or makes output (`os.environ`,
    `sys.argv`, `sys.stdout`, a logger): not a constant janus may fold into a graph."""
    import collections.abc
    import io
    import logging
    return isinstance(value, (collections.abc.MutableMapping, collections.abc.MutableSequence,
                              collections.abc.MutableSet, io.IOBase, logging.Logger)) or \
        hasattr(value, "write") and hasattr(value, "flush")


def _defaulted(function: types.FunctionType) -> tuple:
    """The parameters of `function` that have a default (positional, then keyword-only)."""
    code = function.__code__
    defaults = function.__defaults__ or ()
    names = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
    return tuple(names) + tuple(function.__kwdefaults__ or ())


_FUNCTION_CELLS: dict = {}  # id(function) -> (function, a cell holding it): its defaults'
# source (`CELL[k].__defaults__[i]`), one per function


def _default_source(function: types.FunctionType, name: str) -> Source:
    found = _FUNCTION_CELLS.get(id(function))
    if found is None or found[0] is not function:
        found = _FUNCTION_CELLS[id(function)] = (function, types.CellType(function))
    source = closure(0, found[1])
    code = function.__code__
    if name in (function.__kwdefaults__ or ()):
        return source.attr("__kwdefaults__").item(name)
    first = code.co_argcount - len(function.__defaults__ or ())
    return source.attr("__defaults__").item(code.co_varnames.index(name) - first)


def _default(function: types.FunctionType, name: str):
    if name in (function.__kwdefaults__ or ()):
        return function.__kwdefaults__[name]
    code = function.__code__
    first = code.co_argcount - len(function.__defaults__ or ())
    return function.__defaults__[code.co_varnames.index(name) - first]


@cached_by_identity(maxsize=512)
def _chains(code: types.CodeType, self_name: str | None, defaulted: tuple = ()
            ) -> tuple[tuple, tuple]:
    """The Python writes `code` (and the functions nested in it) makes, and the chains it
    reads (its free variables are the cells: a nested function's own are its locals; its
    parameters with a default, `defaulted`, read the default where not passed; the others
    are roots of their own, "argument", whose value the call says: `_Reads.argument`)."""
    writes, chains = [], []
    root, attrs, where = None, [], None
    outer_free = code.co_freevars
    parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]

    def close(method: bool = False):
        nonlocal root, attrs
        if root is not None:
            chains.append(Chain(root, tuple(attrs), method))
        root, attrs = None, []

    for op, name, _, _, each in instructions(code):
        if each is not where:  # (a chain ends with its code object)
            close()
            where, free = each, each.co_freevars
        if root is not None and op in ("LOAD_ATTR", "LOAD_METHOD"):
            attrs.append(name)
            if op == "LOAD_METHOD":
                close(method=True)
            continue
        close()
        if op in _WRITES:
            writes.append(f"{_WRITES[op]} `{name}`")
        elif op in ("STORE_DEREF", "DELETE_DEREF") and (name in free or name in outer_free):
            writes.append(f"writes the enclosing variable `{name}`")
        elif op in ("LOAD_GLOBAL", "LOAD_NAME"):
            if name in _REFLECTION:
                writes.append(f"calls `{name}`")
            root = ("global", name)
        elif op in ("LOAD_ATTR", "LOAD_METHOD") and name in _REFLECTION:
            writes.append(f"reads `{name}`")
        elif op in ("LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF") and name == self_name:
            root = (_SELF,)
        elif op in ("LOAD_DEREF", "LOAD_CLASSDEREF") and name in outer_free:
            root = ("cell", name)
        elif op == "LOAD_FAST" and name in defaulted and each is code or \
                op == "LOAD_DEREF" and name in defaulted and name in code.co_cellvars and \
                (each is code or name in each.co_freevars):
            root = ("default", name)
        elif op == "LOAD_FAST" and name in parameters and each is code or \
                op == "LOAD_DEREF" and name in parameters and name in code.co_cellvars and \
                (each is code or name in each.co_freevars):
            root = ("argument", name)
    close()
    return tuple(writes), tuple(chains)


class _Reads:
    """What one call's unconverted functions read: the guards to add, or why not."""

    def __init__(self, tracer, owner, arguments: dict | None = None):
        self.tracer, self.owner = tracer, owner
        self.arguments = arguments or {}  # id(function) -> {parameter: the call's argument}
        self.guards: list[tuple[str, Source, object]] = []
        self.fed: list[tuple[Source, tuple]] = []  # (source, (place, key)): held_numbers
        self.seen: set[int] = set()

    def function(self, function: types.FunctionType, self_name: str | None = None) -> str:
        if id(function) in self.seen:
            return ""
        if len(self.seen) >= _MAX_FUNCTIONS:
            return f"calls more than {_MAX_FUNCTIONS} functions of the program's"
        self.seen.add(id(function))
        writes, chains = _chains(function.__code__, self_name,
                                 tuple(n for n in _defaulted(function) if n != self_name))
        if writes:
            return writes[0]
        for chain in chains:
            reason = self.chain(function, chain)
            if reason:
                return reason
        return ""

    def chain(self, function, chain: Chain) -> str:
        kind = chain.root[0]
        if kind == _SELF:
            return self.self_chain(chain)
        name = chain.root[1]
        ledger = self.tracer.ledger if self.tracer is not None else None
        if name.startswith(RUNTIME):
            return ""  # (janus's own runtime in converted code: its reads are hooked)
        bound = self.arguments.get(id(function), {})
        reflective = next((a for a in chain.attrs if a in _REFLECTION), None)
        if kind == "argument" and reflective is not None:  # (as before parameters were
            return f"reads `{reflective}`"  # roots: `x.__dict__`, `x.__setattr__(...)`)
        if kind == "argument" or kind == "default" and name in bound:
            return self.argument(name, bound[name], chain.attrs, chain.method) \
                if name in bound else ""
        if kind == "default":  # (not fed: a tuple janus would have to rebuild)
            if made_closures.made_in_call(self.tracer, function):
                return self.trace_value(name, _default(function, name), chain.attrs,
                                        chain.method)
            return self.value(name, _default(function, name), _default_source(function, name),
                              chain.attrs, chain.method)
        if kind == "global":
            namespace = function.__globals__
            if name not in namespace:
                if output(getattr(builtins, name, None)):
                    return f"calls `{name}` (its output would be made once, while tracing)"
                return "" if hasattr(builtins, name) else f"reads `{name}`, which is unbound"
            if ledger is not None and ledger.get_global(namespace, name) is not MISSING:
                return f"reads the global `{name}`, which the call wrote before"
            source = global_(name, namespace.get("__name__"), namespace)
            value, place = namespace[name], (namespace, name)
        else:
            cell = function.__closure__[function.__code__.co_freevars.index(name)]
            try:
                value = cell.cell_contents
            except ValueError:
                return ""  # (NameError when it runs, as in Python)
            if ledger is not None and ledger.get_cell(cell) is not MISSING:
                return f"reads `{name}`, which the call wrote before"
            made = made_closures.cell_made_in_call(self.tracer, function, cell)
            if not chain.attrs and made_closures.hooked(function) and \
                    (made or self.tracer is None):
                return ""  # (handed to janus's hooks, which guard what they read)
            if made:
                return self.trace_value(name, value, chain.attrs, chain.method)
            source, place = closure(0, cell), (cell, None)
        return self.value(name, value, source, chain.attrs, chain.method, place)

    def argument(self, name: str, value, attrs: tuple, method: bool) -> str:
        """`opt.lr` of a parameter, read by code run once while tracing (a singledispatch
        implementation, F398): a tensor, a variable or an immutable value the trace had
        is in its graph; an object the heap holds is read like a global's through its
        source (its attributes guarded by value), else refused (a read folded into the
        graph would never see the object change)."""
        if isinstance(value, types.FunctionType) and is_user_code(value):
            return self.function(value)
        leaves = tf.nest.flatten(value) if isinstance(value, (list, tuple, dict)) else [value]
        if all(is_symbolic(v) or _fixed_object(v) or immutable(v) or
               isinstance(v, _CODE_VALUES) for v in leaves) and \
                (not attrs or not isinstance(value, (list, dict))):
            return ""
        source = self.tracer.source_of(value) if self.tracer is not None else None
        if source is not None and attrs and not isinstance(value, (list, dict, tuple)):
            return self.attributes(name, value, source, attrs, method)
        if self.tracer is None:
            return ""  # (the profiler's question: the trace decides)
        return (f"reads its argument `{name}`, a {type(value).__name__} janus cannot check "
                "on each call")

    def trace_value(self, name: str, value, attrs: tuple, method: bool) -> str:
        """A value the call itself put in a cell or default (graphgen/made_closures.py):
        read through the heap source it came from, else a value of the trace."""
        source = made_closures.heap_source(self.tracer, value)
        if source is not None:
            return self.value(name, value, source, attrs, method)
        if isinstance(value, types.FunctionType) and is_user_code(value):
            return self.function(value)
        if isinstance(value, (types.ModuleType, types.BuiltinFunctionType)) or \
                output(value):
            return self.value(name, value, None, attrs, method)
        if not attrs and (immutable(value) or is_symbolic(value) or _fixed_object(value)):
            return ""  # (computed by the trace from what it guarded, or in its graph)
        if attrs and made_closures.made_object(self.tracer, value) and not method:
            attr, cls = attrs[0], type(value)
            if attr in getattr(value, "__dict__", ()) and not hasattr(cls, attr) and \
                    is_user_class(cls) and cls.__getattribute__ is object.__getattribute__:
                return self.trace_value(f"{name}.{attr}", vars(value)[attr], attrs[1:],
                                        method)
        return (f"reads `{name}`, a {type(value).__name__} the call made that janus cannot "
                "locate on each call")

    def value(self, name: str, value, source: Source, attrs: tuple, method: bool,
              place: tuple | None = None) -> str:
        """A global's or cell's value read through `attrs` (`place`: where it is held, if
        janus may put a stand-in there: held_numbers)."""
        if output(value):
            return f"calls `{name}` (its output would be made once, while tracing)"
        if isinstance(value, types.ModuleType):
            if attrs and not is_user_module(value):
                found = vars(value).get(attrs[0])
                if output(found) or _library_data(found):
                    return (f"reads `{name}.{attrs[0]}`, output or data of a library's that "
                            "may change between calls")
            if not attrs or not is_user_module(value) or attrs[0] not in vars(value):
                return ""  # (a library's module: its functions and constants)
            namespace = vars(value)
            if self.tracer is not None and \
                    self.tracer.ledger.get_global(namespace, attrs[0]) is not MISSING:
                return f"reads `{name}.{attrs[0]}`, which the call wrote before"
            source = global_(attrs[0], value.__name__, namespace)
            return self.value(f"{name}.{attrs[0]}", namespace[attrs[0]], source, attrs[1:],
                              method, (namespace, attrs[0]))
        if isinstance(value, types.FunctionType) and is_user_code(value):
            return self.function(value)  # (a helper it calls runs unconverted too)
        if isinstance(value, type) and attrs and is_user_class(value):
            return self.class_attribute(name, value, source, attrs, method)
        if isinstance(value, _CODE_VALUES):
            return ""
        if immutable(value):
            return self.number(name, source, value, place)
        if _fixed_object(value):
            self.guards.append(("id", source, value))
            return ""
        return self.attributes(name, value, source, attrs, method)

    def class_attribute(self, name: str, cls: type, source: Source, attrs: tuple,
                        method: bool) -> str:
        """`HP.alpha` of a class of the program's: its value read through `source`, as a
        global's (a method it calls: followed; a classmethod reads `cls`: refused)."""
        attr = attrs[0]
        where = next((c for c in cls.__mro__ if attr in vars(c)), None)
        if where is None or type(cls) is not type:
            return "" if where is None and type(cls) is type else \
                f"reads `{name}.{attr}`, which janus cannot locate"
        found = vars(where)[attr]
        if isinstance(found, staticmethod):
            found = found.__func__
        if isinstance(found, (classmethod, property)) or hasattr(type(found), "__get__") and \
                not isinstance(found, (types.FunctionType, type)):
            return f"reads `{name}.{attr}` through a descriptor"
        if isinstance(found, types.FunctionType):
            return self.function(found) if is_user_code(found) else ""
        if self.tracer is not None and any(
                self.tracer.ledger.get_attr(c, attr) is not MISSING for c in cls.__mro__):
            return f"reads `{name}.{attr}`, which the call wrote before"
        self.guards.append(("id", source, cls))
        return self.value(f"{name}.{attr}", found, source.attr(attr), attrs[1:], method,
                          (where, attr))

    def attributes(self, name: str, value, source: Source, attrs: tuple, method: bool) -> str:
        """`cfg.lr` of a plain object (its instance dict, no descriptor): the end of the
        chain guarded by value, each object on the way by type."""
        for i, attr in enumerate(attrs):
            cls = type(value)
            record = f"{cls.__module__}.{cls.__qualname__}" in _PLAIN_RECORDS
            if method and i == len(attrs) - 1 or attr not in getattr(value, "__dict__", ()) \
                    or hasattr(cls, attr) or not record and (
                        cls.__getattribute__ is not object.__getattribute__ or
                        not is_user_class(cls)):
                break  # (a SimpleNamespace's own __getattribute__ is the generic one)
            if self.tracer is not None and \
                    self.tracer.ledger.get_attr(value, attr) is not MISSING:
                return f"reads `{name}.{attr}`, which the call wrote before"
            self.guards.append(("type", source, cls))
            place = (vars(value), attr)
            value, source, name = vars(value)[attr], source.attr(attr), f"{name}.{attr}"
            if immutable(value):
                return self.number(name, source, value, place)
            if _fixed_object(value):  # (`self.w1` of a lambda closing over `self`)
                self.guards.append(("id", source, value))
                return ""
        return (f"reads `{name}`, which holds data (a {type(value).__name__}) janus cannot "
                "check by value")

    def self_chain(self, chain: Chain) -> str:
        """`self.name` in a Keras hook: a variable, Keras' own method or property, a method
        of the program's (followed), or a setting guarded by value."""
        owner = self.owner
        if not chain.attrs:
            return "hands its object itself to other code"
        name = chain.attrs[0]
        where = next((cls for cls in type(owner).__mro__ if name in vars(cls)), None)
        found = vars(where)[name] if where is not None else None
        if name in getattr(owner, "__dict__", ()) and not hasattr(type(found), "__set__"):
            value = vars(owner)[name]
            if _variables(value):
                return ""
            if immutable(value):
                return self.setting(name, value)
            return (f"reads `{name}` of its {type(owner).__name__}, a "
                    f"{type(value).__name__} it may change or read otherwise")
        if where is None:
            return ""  # (AttributeError when it runs, as in Python; or Keras' __getattr__)
        if not is_user_class(where):
            return ""  # (Keras' own method, property or constant)
        if isinstance(found, types.FunctionType):
            code = found.__code__
            return self.function(found, code.co_varnames[0] if code.co_argcount else None)
        if isinstance(found, property) and isinstance(found.fget, types.FunctionType):
            return self.function(found.fget, found.fget.__code__.co_varnames[0])
        if immutable(found):
            return self.setting(name, found)
        return f"reads `{name}` of its class, which holds data"

    def setting(self, name: str, value) -> str:
        """`self.gamma`: guarded by value through the object's source (read when the call
        starts: a write to it earlier in the same call would come too late)."""
        tracer = self.tracer
        if tracer is None:
            return ""
        source = tracer.source_of(self.owner)
        if source is None:
            return (f"reads `{name}` of a {type(self.owner).__name__} janus cannot locate "
                    "on each call")
        if any(tracer.ledger.get_attr(o, name) is not MISSING
               for o in (self.owner,) + type(self.owner).__mro__):
            return f"reads `{name}`, which the call wrote before"
        return self.number(f"self.{name}", source.attr(name), value, None)

    def number(self, name: str, source: Source, value, place: tuple | None) -> str:
        """An immutable value read: guarded by value; a number the ladder feeds (its value
        guard failed: `plan.scalars`) fed through a stand-in at `place`; one whose feeding
        failed (`plan.kept`), or that has no such place, guarded by value until traces saw
        a few values of it, then refused (graphgen/held_numbers.py)."""
        tracer = self.tracer
        if tracer is not None and type(value) in (int, float):
            plan, role = tracer.plan, source.role
            unfed = role in plan.kept or held_numbers.unfed(tracer, role)
            if plan.is_scalar(source) and place is not None and not unfed:
                self.fed.append((source, place))
                return ""
            if (unfed or plan.is_scalar(source)) and \
                    held_numbers.changing(tracer, role, value):
                # (no graph fits every call: split here, not a graph per value)
                raise GraphValueInPython(
                    f"calls code of the program's a library runs unconverted, which reads "
                    f"`{name}`, a number that changes between calls, as Python (janus "
                    "cannot feed it to that code)")
        self.guard(source, value)
        return ""

    def guard(self, source: Source, value) -> None:
        """A guard on an immutable value (a tuple's items each: `(1, 2) == (1.0, 2.0)`)."""
        self.guards.append(("value", source, value))
        if type(value) is tuple:
            for i, item in enumerate(value):
                self.guard(source.item(i), item)


def _fixed_object(value) -> bool:
    """A variable (the graph reads it when it runs) or an eager tensor (immutable): by
    identity."""
    return _variables(value) and not isinstance(value, (list, tuple)) or \
        isinstance(value, EAGER_TENSOR)


def _variables(value) -> bool:
    """A variable, or a list or tuple of them (a Metric's `self.counts = [...]`)."""
    if isinstance(value, tf.Variable) or hasattr(value, "assign") and \
            hasattr(value, "value") and type(value).__module__.startswith("keras"):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and \
        all(_variables(v) for v in value)


def reason(functions: list, tracer=None, owner=None, self_names: dict | None = None,
           gradient: bool = False, arguments: dict | None = None) -> str:
    """Why `functions` (run unconverted while tracing) cannot be traced ("" if they can);
    with `tracer`, their guardable reads are guarded. `self_names`: id(function) -> the
    name of its object's parameter (a Keras hook's `self`, read through `owner`).
    `gradient`: code behind a gradient decorator, which may also run after the trace
    (graphgen/python_gradients.py). `arguments`: id(function) -> its parameters' values
    in this call (`_Reads.argument`)."""
    reads = _Reads(tracer, owner, arguments)
    for function in functions:
        self_name = (self_names or {}).get(id(function))
        found = reads.function(function, self_name)
        if found:
            return f"{function.__qualname__} {found}"
    if tracer is not None:
        for kind, source, expected in reads.guards:
            tracer.guard(kind, source, expected)
        held_numbers.feed(tracer, [(source, held_numbers.Holder(*place))
                                   for source, place in reads.fed])
        if gradient and (reads.guards or reads.fed):
            python_gradients.note(tracer.graph)
    return ""
