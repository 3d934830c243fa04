"""The program's code that Keras calls from its own code, found before a trace calls Keras.

    T = {"t": 1.0}
    def act(x):
        return tf.tanh(x / T["t"])                  # a global janus cannot guard here

    dense = keras.layers.Dense(4, activation=act)   # Keras' `call` calls `act`
    opt = keras.optimizers.SGD(StepDecay(cfg))      # `apply_gradients` calls the schedule
    model.compile(loss=my_loss)                     # `compute_loss` calls `my_loss`

A trace runs Keras' code as it is, and the program's functions Keras holds (a layer's
`activation`, a `Lambda`'s function, a schedule's, regularizer's or constraint's
`__call__`, a loss function, compiled or wrapped) run inside it unconverted, once, while
tracing: what they read of globals, closures or their object's attributes is folded
into the graph; their prints and heap writes happen once, at trace time, not per call.

`reason(fn, tracer)` looks, before a traced call of a Keras layer, optimizer, loss or
model method, at the program's functions the object holds (its layers', variables',
compiled losses' and metrics', and its learning rate's) and at what their code does (the
functions they call of the program's too): the call is refused (it runs plainly) when
that code reads an attribute of its object no setting guard sees (a nested object of
the program's, a private one holding other than a number), or prints, or writes an attribute, item, global or
closure variable, or changes a container in place. What it reads of globals, closures,
modules, classes and its parameters' defaults, in its nested code too, is checked as
graphgen/unconverted_reads.py checks it: an immutable value (`HP.alpha`, `C.ALPHA`, a
closure's `cfg.temp`) guarded by value, data (`os.environ`, a dict) refused. Code reading
only its arguments, modules, functions and constants (`def act(x): return tf.tanh(x)`)
and the numbers of a Keras schedule, regularizer or constraint of the program's class
(guarded with the object's settings: graphgen/keras_settings.py; a private one it reads,
`self._warmup`, joins them: keras_settings.note_private_number) stays in the graph.
"""
from __future__ import annotations

import functools
import sys
import types

import tensorflow as tf

from janus.graphgen import unconverted_reads
from janus.graphgen.held_bytecode import instructions
from janus.graphgen.program_classes import program_definitions
from janus.graphgen.keras_settings import SETTING_TYPES, held_by_layer, held_classes, \
    held_state, library_object, note_private_number, numbers, settings_dict
from janus.transform.runtime import is_user_code

_CODE_VALUES = (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType)
_WRITES = frozenset({"STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL", "DELETE_GLOBAL",
                     "STORE_SUBSCR", "DELETE_SUBSCR"})
_OUTPUT = frozenset({"print", "input", "open", "breakpoint"})
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "setdefault",
                       "popitem", "discard", "appendleft", "popleft", "extendleft"})
_OUTPUT_METHODS = frozenset({"write", "writelines", "debug", "info", "warning", "warn",
                             "error", "exception", "critical"})
_DEPTH = 3  # (library objects walked into: a model's compiled loss, its wrappers)


def _keras_classes():
    """Keras' Layer, BaseOptimizer, Loss, Model classes, or None before Keras is imported."""
    if "keras.src.layers.layer" not in sys.modules:
        return None
    from keras.src.layers.layer import Layer
    from keras.src.losses.loss import Loss
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    return Layer, BaseOptimizer, Loss


class _Seen(set):
    """The ids of the objects and functions one `reason` looked at, and the program's
    functions among them (`functions`: their reads are checked by unconverted_reads);
    `reads`: for `program_methods`, the object's attributes its methods read (kept by
    the graph, checked by the caller), else None."""

    def __init__(self, reads: dict | None = None):
        super().__init__()
        self.functions: list = []
        self.reads = reads


def _user_function(value):
    """The program's Python function behind `value` (a `tf.function`, a wrapper), or None."""
    for _ in range(4):
        if isinstance(value, types.MethodType):
            value = value.__func__
        if isinstance(value, functools.partial):
            value = value.func
        inner = getattr(value, "python_function", None) or getattr(value, "__wrapped__", None)
        if isinstance(value, types.FunctionType) and is_user_code(value):
            return value
        if inner is None:
            return None
        value = inner
    return None


def _attribute_reason(owner, name: str, value) -> str:
    """Why reading `owner.name` (the object Keras calls) in its code is not guarded: what
    keras_settings guards with a held object's settings (its public numbers, lists and
    dicts of them, tensors, the Keras schedules it holds in turn) is."""
    if isinstance(value, _CODE_VALUES):
        return ""
    if not isinstance(owner, held_classes()):
        return f"reads `self.{name}`, which no guard sees"
    if name.startswith("_"):  # (`self._warmup` of the program's schedule: F297)
        if library_object(owner) or not (type(value) in SETTING_TYPES or
                                         type(value) is tuple and numbers(value)):
            return f"reads `self.{name}`, which no guard sees"
        note_private_number(type(owner), name)  # (a setting of its objects from now on)
        return ""
    guarded = type(value) in SETTING_TYPES or held_state(value) or numbers(value) or \
        settings_dict(value) or isinstance(value, held_classes())
    return "" if guarded else f"reads `self.{name}`, which no guard sees"


def _self_read(op: str, before, before_name, this, code, where) -> bool:
    """The instruction reads an attribute of the object the code is bound to (`self.x`;
    in a lambda or comprehension nested in it, `self` is a free variable)."""
    return this is not None and op in ("LOAD_ATTR", "LOAD_METHOD") and \
        before_name == this and before in ("LOAD_FAST", "LOAD_DEREF") and \
        (where is code or this in where.co_freevars and this in code.co_cellvars)


def _code_reason(function, owner, seen: _Seen, depth: int = 0) -> str:
    """What `function`'s code (bound to `owner`, or None) does that a graph cannot keep
    (its reads of globals, closures and defaults are left to unconverted_reads: the
    functions looked at are noted in `seen.functions`)."""
    if id(function) in seen or depth > 4:
        return ""
    seen.add(id(function))
    seen.functions.append(function)
    code, glob = function.__code__, function.__globals__
    cells = dict(zip(code.co_freevars, function.__closure__ or ()))
    this = code.co_varnames[0] if owner is not None and code.co_argcount else None
    for op, name, before, before_name, where in instructions(code):
        if op in _WRITES or op == "STORE_DEREF" and name in where.co_freevars:
            return f"writes `{name}`"
        if op in ("LOAD_ATTR", "LOAD_METHOD") and name in _MUTATORS:
            return f"changes a container in place (`.{name}`)"
        if op in ("LOAD_ATTR", "LOAD_METHOD") and name in _OUTPUT_METHODS:
            return f"makes output (`.{name}`)"
        if op == "LOAD_GLOBAL" or op == "LOAD_NAME":
            if name not in glob:
                if name in _OUTPUT:
                    return f"calls {name}"
                continue
            value = glob[name]
        elif op in ("LOAD_DEREF", "LOAD_CLASSDEREF") and where is code and name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
        elif _self_read(op, before, before_name, this, code, where):
            reason = _self_attribute_reason(owner, name, seen, depth)
            if reason:
                return reason
            continue
        else:
            continue
        inner = _user_function(value)
        if inner is not None:
            reason = _code_reason(inner, None, seen, depth + 1)
            if reason:
                return reason
    return ""


def _self_attribute_reason(owner, name: str, seen: _Seen, depth: int) -> str:
    """Why `owner.name`, read in the code Keras calls, is not guarded (a method or a Keras
    schedule it holds: what their code does)."""
    attrs = getattr(owner, "__dict__", {})
    if name in attrs:
        value = attrs[name]
        if seen.reads is not None and _kept(value) is not None:  # (checked by the caller)
            seen.reads[name] = _kept(value)
            return ""
        reason = _attribute_reason(owner, name, value)
        if reason:
            return reason
        if isinstance(value, held_classes()):  # (a schedule holding a schedule)
            return _callable_reason(value, seen)
    else:
        value = getattr(type(owner), name, None)
        if value is not None and not isinstance(value, (*_CODE_VALUES, property)) \
                and not callable(value):
            return f"reads the class attribute `{name}`, which no guard sees"
    inner = _user_function(value)
    if inner is not None:
        return _code_reason(inner, owner, seen, depth + 1)
    return ""


def _callable_reason(value, seen: _Seen) -> str:
    """Why the program's callable `value`, held by a Keras object, cannot be traced
    as it is ("" if it is not the program's, or can)."""
    function = _user_function(value)
    if function is not None:
        owner = value.__self__ if isinstance(value, types.MethodType) else None
        reason = _code_reason(function, owner, seen)
        return f"{function.__qualname__} {reason}" if reason else ""
    if library_object(value) or isinstance(value, type) or not callable(value):
        return ""
    for name in ("__call__", "call"):  # (a schedule's, regularizer's, loss's)
        method = getattr(type(value), name, None)
        function = _user_function(method)
        if function is not None:
            reason = _code_reason(function, value, seen)
            if reason:
                return f"{function.__qualname__} {reason}"
    return ""


def _held_reason(value, seen: _Seen, depth: int) -> str:
    """The first reason among the callables `value` (an attribute of a Keras object)
    holds: itself, its items, and a library object's attributes (a compiled loss)."""
    if id(value) in seen or value is None or type(value) in SETTING_TYPES:
        return ""
    if type(value) in (list, tuple, dict) or \
            library_object(value) and isinstance(value, (list, dict)):
        if depth >= _DEPTH:
            return ""
        items = value.values() if isinstance(value, dict) else value
        for item in list(items)[:64]:
            reason = _held_reason(item, seen, depth + 1)
            if reason:
                return reason
        return ""
    if "_constraint" in getattr(value, "__dict__", ()):  # (a Keras variable: what Keras
        held = (value.__dict__["_constraint"], value.__dict__.get("_regularizer"))  # calls)
        return next((r for r in (_held_reason(v, seen, depth) for v in held) if r), "")
    classes = _keras_classes()
    layer = value.__self__ if isinstance(value, types.MethodType) else value
    if classes is not None and isinstance(layer, classes[0]):
        return ""  # (a sublayer, or its bound `call`: looked at as one of the called
        # layer's layers; a program's layer's `call` janus converts: graphgen/layer_calls)
    reason = _callable_reason(value, seen)
    if reason or not library_object(value) or depth >= _DEPTH or not hasattr(value, "__dict__"):
        return reason
    seen.add(id(value))
    return _attributes_reason(value, seen, depth + 1)


_PASSED = frozenset({("Lambda", "arguments")})
"""(class, attribute) of Keras' objects holding values Keras passes to the program's code
(a Lambda's keyword arguments): settings (keras_settings.settings_dict), else refused."""


def _passed_reason(obj, name: str, value) -> str:
    if (type(obj).__name__, name) not in _PASSED or not library_object(obj) or \
            settings_dict(value) or isinstance(value, dict) and all(
                isinstance(v, tf.Variable) or type(v) in SETTING_TYPES or held_state(v)
                for v in value.values()):
        return ""
    return f"is passed `{name}` holding data janus cannot check by value"


def _attributes_reason(obj, seen: _Seen, depth: int) -> str:
    cls = type(obj)
    for name, value in list(vars(obj).items()):
        if name in ("_tracker", "_layers", "_parent_path", "_inbound_nodes",
                    "_outbound_nodes", "_variables", "_non_trainable_variables") or \
                callable(getattr(cls, name, None)):
            continue  # (an instance's own wrapper of a method: Keras' `build`, janus's `call`)
        reason = _passed_reason(obj, name, value)
        if reason:
            return f"{type(obj).__name__} {reason}"
        reason = _held_reason(value, seen, depth)
        if reason:
            return reason
    return ""


def reason(fn, tracer=None) -> str:
    """Why a traced call of `fn` (a Keras layer, a method of a Keras optimizer, loss or
    model) would run code of the program's unconverted (see the module docstring); with
    `tracer`, what that code reads of globals, closures and defaults is guarded."""
    classes = _keras_classes()
    if classes is None:
        return ""
    obj = fn if isinstance(fn, classes[0]) or isinstance(fn, classes[2]) else \
        getattr(fn, "__self__", None)
    if obj is None or not isinstance(obj, classes):
        return ""
    seen = _Seen()
    found = ""
    if isinstance(obj, classes[0]):
        for layer in obj._flatten_layers(include_self=True, recursive=True):
            found = _layer_reason(layer, _keras_call(layer), seen)
            if found:
                return _text(fn, found)
    if obj is not fn:
        found = _attributes_reason(obj, seen, 1)
    if not found and seen.functions:
        found = unconverted_reads.reason(seen.functions, tracer)
    return _text(fn, found) if found else ""


def _keras_call(layer) -> bool:
    """Keras' own `call` runs for `layer` (its class's is not the program's; an instance's
    own, janus's shadow of the program's: graphgen/layer_calls.py, does not count)."""
    for cls in type(layer).__mro__:
        fn = cls.__dict__.get("call")
        if fn is not None:
            return _user_function(fn) is None
    return True


def _layer_reason(layer, library_call: bool, seen: _Seen) -> str:
    """A layer's held code: all its attributes when Keras' `call` runs (else only what
    Keras calls besides its `call`: its variables' regularizers and constraints, its
    activity regularizer)."""
    seen.add(id(layer))
    if library_call:
        return _attributes_reason(layer, seen, 1)
    return next((r for r in (_held_reason(v, seen, 1) for _, v in held_by_layer(layer))
                 if r), "")


def _text(fn, found: str) -> str:
    owner = fn if not hasattr(fn, "__self__") else fn.__self__
    return (f"calls a {type(owner).__name__} that calls the program's {found}: Keras runs "
            "it unconverted, once, while tracing")


# -- the program's methods of an optimizer whose update is made a graph (F332)

_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
_ACCESSORS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__"})


def _kept(value):
    """What a graph made of code reading `value` keeps of it, to compare before each run
    (`same_kept`): a setting's value, a variable (by identity), a list or tuple of
    variables (its items); None: not kept soundly (refused)."""
    if type(value) in SETTING_TYPES or _variable(value):
        return value
    if isinstance(value, (list, tuple)) and len(value) <= 256 and \
            (type(value) in (list, tuple) or library_object(value)) and \
            all(map(_variable, value)):  # (Keras' TrackedList of a `self.moms = [...]`)
        return (type(value), value, tuple(value))
    return None


def _variable(value) -> bool:
    """A tf.Variable or a Keras variable (read when the graph runs, kept by identity)."""
    return isinstance(value, tf.Variable) or \
        (type(value).__module__ or "").startswith("keras") and hasattr(value, "assign")


def same_kept(now, kept) -> bool:
    """Whether the value `now` is still what `_kept` made `kept` of."""
    if type(kept) is tuple:
        kind, held, items = kept
        return now is held and len(now) == len(items) and \
            all(a is b for a, b in zip(now, items))
    if _variable(kept):
        return now is kept
    return type(now) is type(kept) and now == kept


def _global_reason(function) -> str:
    """Why a function's reads of globals and closure cells (other than modules, classes
    and functions) cannot be kept by a graph made without a trace's guards."""
    glob = function.__globals__
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    for op, name, _, _, where in instructions(function.__code__):
        if op in _GLOBAL_LOADS and name in glob and not isinstance(glob[name], _CODE_VALUES):
            return f"reads the global `{name}`"
        if op in ("LOAD_DEREF", "LOAD_CLASSDEREF") and where is function.__code__ and \
                name in cells and name != "__class__":
            try:
                value = cells[name].cell_contents
            except ValueError:
                continue
            if not isinstance(value, _CODE_VALUES):
                return f"reads the closure variable `{name}`"
    return ""


def program_methods(obj, construction: frozenset) -> tuple:
    """(reason, reads) for an optimizer of the program's class whose `apply_gradients`
    is made one graph outside a trace (fallback/mixed.py: F310, F332): why the code of
    the methods its program classes define (but `construction`; `build` once built)
    cannot be kept in a graph — it writes, prints, changes a container, reads a global,
    a descriptor of the program's — ("" if it can), and what the graph keeps of what it
    reads: {name: kept} of the object's own attributes (`self.scale`, `self.moms`) and
    {(class, name): value} of the classes' constants (`type(self).SCALE`), which the
    caller compares before each run (`same_kept`)."""
    reads: dict = {}
    seen = _Seen(reads)
    skipped = construction | ({"build"} if getattr(obj, "built", False) else frozenset())
    for cls, name, value in program_definitions(type(obj), skipped):
        if name in _ACCESSORS:
            return f"{cls.__qualname__} defines `{name}`", {}
        function = value.__func__ if isinstance(value, (staticmethod, classmethod)) \
            else value
        if isinstance(function, types.FunctionType):
            owner = obj if isinstance(value, types.FunctionType) else None
            found = _code_reason(function, owner, seen)
            if found:
                return f"{function.__qualname__} {found}", {}
            continue
        if hasattr(type(value), "__get__"):
            return f"{cls.__qualname__} defines the descriptor `{name}`", {}
        if name.startswith("__") and name.endswith("__"):
            continue  # (class metadata)
        if _kept(value) is None:
            return f"{cls.__qualname__}.{name} holds data janus cannot check by value", {}
        reads[(cls, name)] = _kept(value)
    for function in seen.functions:
        found = _global_reason(function)
        if found:
            return f"{function.__qualname__} {found}", {}
    return "", reads
