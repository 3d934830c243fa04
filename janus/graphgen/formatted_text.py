"""Text formatted during a trace from a value only the graph knows: a str that refuses
to be read.

Formatting a fed Python number (`values.SymbolicScalar`) or a tensor during a trace
(`str(n)`, `f"step {n}"`, `"%s" % loss`, `repr(t)`) gives a marker (`tracer.format_marker`)
that the write-back fills in with the run-time value (fallback/heap.py). The marker is
right wherever Python only moves the text about: printed, stored on the heap, returned,
joined into more text. Any other use would decide on the marker's characters, once, at
trace time, and the graph would keep that answer: `str(n) == "3"`, `len(f"{n}")`,
`f"k{n}" in d`, `text.startswith("1")`, `text[1:]`, `int(str(n))`, `if text:` (F145).

So the marker is a `FormattedText`: a str whose every reading operation (comparison,
hashing, length, truth, items, iteration, conversion, `repr`, a spec, every str method
but `join`) refuses the trace: with `FedScalarMisuse` when a fed number was formatted
into it (the number then stays guarded: one graph per value), a `ConversionError` when
a tensor was (the call runs plainly, or the segment splits). Concatenation, repetition,
`join` and `%`/`format` with a bare `%s`/`{}` keep it a FormattedText.

Python builds a new plain str where the parts are joined without asking them: an
f-string, `%`, `"".join(...)`, `"{}".format(...)`. The transform hooks f-strings and `%`
(transform/text.py: `text`, `percent`), and the runtime's library calls go through
`call`, which turns a str holding a marker back into FormattedText and refuses a library
function handed formatted text unless it only stores it or reads it through its own
methods (C code reads a str's characters directly: `os.path.exists(path)`, `re.match`,
`tf.constant(text)`).
"""
from __future__ import annotations

import collections
import re
import sys
from typing import NoReturn

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import active, implicit_calls
from janus.graphgen.append_only import AppendOnlyList
from janus.graphgen.values import FedScalarMisuse, SymbolicScalar
from janus.operation_hooks import operation_hook
from janus.patches import once

MARK = "\x00janus"
"""How every marker starts (tracer.format_marker, heap.MARKER)."""


def refuse(text: str, use: str) -> NoReturn:
    """Refuse using `text` (holding markers) as `use` says: FedScalarMisuse for the first
    fed number formatted into it, else a ConversionError (a tensor's value)."""
    tracer = active.get()
    formatted = tracer.formatted_in(text) if tracer is not None else []
    for value in formatted:
        if isinstance(value, SymbolicScalar):
            raise FedScalarMisuse(f"text formatted from a Python number that changes per "
                                  f"call is {use}", value.role, value.from_graph)
    raise ConversionError(f"text formatted from a tensor's value (known when the graph "
                          f"runs) is {use}")


def holds_marker(value) -> bool:
    """Whether `value` is a str holding a marker (without asking a FormattedText)."""
    return isinstance(value, str) and str.__contains__(value, MARK)


def plain(text: str) -> str:
    """`text` as a plain str (the write-back's copy of a FormattedText)."""
    return str.__str__(text)


_ANY_MARKER = re.compile(MARK + "\\d+.*?\x00", re.S)


def settled(exc: BaseException) -> BaseException:
    """`exc` (raised by a trace) with its formatted-text arguments as plain text, each
    marker shown as `<known when the graph runs>`: janus reads its message after the
    trace (a reason, a line), where a FormattedText would refuse."""
    if any(holds_marker(a) for a in exc.args):
        exc.args = tuple(_ANY_MARKER.sub("<known when the graph runs>", plain(a))
                         if holds_marker(a) else a for a in exc.args)
    return exc


class FormattedText(str):
    """A str holding markers of values formatted during the trace (the module docstring).
    Only what keeps it text the write-back fills is allowed; the rest refuses."""

    __slots__ = ()

    def __str__(self):
        return self

    def __format__(self, spec):
        if spec:  # (a width or alignment would count the marker's characters)
            refuse(self, f"formatted with the spec {spec!r}")
        return self

    def __add__(self, other):
        if not isinstance(other, str):
            refuse(self, f"added to a {type(other).__name__}")
        return FormattedText(str.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, str):
            refuse(self, f"added to a {type(other).__name__}")
        return FormattedText(str.__add__(other, self))

    def __mul__(self, count):
        if type(count) is not int:
            refuse(self, f"repeated by a {type(count).__name__}")
        return FormattedText(str.__mul__(self, count))

    __rmul__ = __mul__

    def __rmod__(self, template):
        if not isinstance(template, str):
            refuse(self, f"the right operand of % with a {type(template).__name__}")
        return percent(template, self)

    def join(self, parts):
        parts = list(parts)
        if not all(isinstance(part, str) for part in parts):  # (Python's TypeError: in
            refuse(self, "joining items that are not str")   # the plain call)
        return FormattedText(str.join(self, parts))


_KEPT = frozenset({"__new__", "__getattribute__", "__sizeof__", "__getnewargs__", "__doc__",
                   "maketrans"} | set(vars(FormattedText)))
"""str's own attributes FormattedText keeps: object plumbing and what it defines."""


def _refusing(name: str):
    def method(self, *args, **kwargs):
        refuse(self, f"read by {name}")
    method.__name__ = method.__qualname__ = name
    return method


for _name in sorted(set(vars(str)) - _KEPT) + ["__bool__", "__int__", "__float__",
                                                "__complex__", "__reversed__"]:
    setattr(FormattedText, _name, _refusing(_name))
FormattedText.__hash__ = _refusing("__hash__")  # (a dict key, a set member, `in d`)


@operation_hook
def text(value: object) -> object:
    """The value of an f-string in a trace (transform/text.py): a str holding markers
    becomes FormattedText (Python joined its parts into a plain str)."""
    if type(value) is str and MARK in value:
        return FormattedText(value)
    return value


_CONVERSION = re.compile(r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?P<width>\*|\d+)?"
                         r"(?:\.(?P<precision>\*|\d+))?[hlL]?(?P<type>.)", re.S)


@operation_hook
def percent(template: object, values: object) -> object:
    """`template % values` in a trace (transform/text.py): formatted text may be an
    argument of a bare `%s` only (a width or precision counts the marker's characters,
    `%r` gives its repr, `%d` raises a TypeError naming FormattedText); the result of a
    str template is FormattedText when it holds markers."""
    if not isinstance(template, str):
        return template % values
    if isinstance(template, FormattedText):
        refuse(template, "used as a %-format")
    if isinstance(values, FormattedText) or isinstance(values, (tuple, dict)) and any(
            isinstance(v, FormattedText) for v in (values.values() if isinstance(values, dict)
                                                   else values)):
        _check_percent(template, values)
    return text(str.__mod__(template, values))


def _check_percent(template: str, values) -> None:
    position = 0
    for match in _CONVERSION.finditer(template):
        if match["type"] == "%":
            continue
        stars = (match["width"] == "*") + (match["precision"] == "*")
        if match["key"] is not None:
            value = values.get(match["key"]) if isinstance(values, dict) else None
        elif isinstance(values, tuple):
            position += stars
            value = values[position] if position < len(values) else None
            position += 1
        else:
            value = values if position == 0 else None
            position += 1
        if isinstance(value, FormattedText) and (match["type"] != "s" or match["width"] or
                                                 match["precision"]):
            refuse(value, f"formatted by {match.group(0)!r}")


class TextHooks:
    """The trace runtime's hooks of transform/text.py (a mixin of runtime.TraceRuntime)."""

    @operation_hook
    def text(self, value):
        return text(value)

    @operation_hook
    def percent(self, template, values):
        return percent(template, values)


# -- library calls of converted code (graphgen/runtime.TraceRuntime.call)
_THROUGH_METHODS = frozenset({str, format, isinstance, len, hash, bool, iter, list, tuple,
                              set, frozenset, dict, sorted, min, max, reversed, enumerate,
                              zip, repr})
"""Builtins that read a str argument through its methods (FormattedText's refuse)."""

_CONTAINERS = (list, dict, set, collections.deque, AppendOnlyList)
"""Whose methods store an item as it is (keys and searches hash or compare it)."""


@implicit_calls.on_behalf  # (a user `__eq__` that `ORDER.index(t)` runs: the program's)
@operation_hook
def call(fn, args: tuple, kwargs: dict) -> object:
    """`fn(*args, **kwargs)`, a call of converted code to a function janus does not
    convert: refused when formatted text is among the arguments (or items of a list,
    tuple or dict argument) and `fn` could read its characters directly; a str holding
    markers it returns (`"".join(parts)`, `"{}".format(n)`) is FormattedText."""
    if fn is type and len(args) == 1 and isinstance(args[0], FormattedText):
        return str
    for value in _arguments(args, kwargs):
        if isinstance(value, FormattedText) and not _stores_or_asks(fn):
            name = user_attributes.get(fn, "__qualname__") or \
                user_attributes.get(fn, "__name__", repr(fn))
            refuse(value, f"handed to {name}")
    return text(fn(*args, **kwargs))


def _arguments(args: tuple, kwargs: dict):
    for value in (*args, *kwargs.values()):
        yield value
        if type(value) in (list, tuple):
            yield from value
        elif type(value) is dict:
            yield from value.values()


def _stores_or_asks(fn) -> bool:
    """Whether `fn` only stores its arguments or reads them through their methods."""
    owner = user_attributes.get(fn, "__self__")
    if isinstance(owner, FormattedText) or isinstance(owner, _CONTAINERS):
        return True
    if type(owner) is str:
        return user_attributes.get(fn, "__name__", "") in ("join", "format")
    if any(fn is f for f in _THROUGH_METHODS):  # (identity: never a user __eq__)
        return True
    return _user_class(fn)


def _user_class(fn) -> bool:
    """A class of the program's own (its `__init__` stores the text; its methods ask it)."""
    if not isinstance(fn, type):
        return False
    module_name = fn.__module__ or ""
    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None) or ""
    return bool(path) and "site-packages" not in path and \
        module_name.split(".")[0] not in sys.stdlib_module_names and \
        not module_name.startswith("janus")


def check_format_spec(tensor, spec: str) -> None:
    """Refuse the trace (the call runs plainly, and raises there) when formatting
    `tensor`'s value with `spec` would raise in eager code (`f"{loss:.3f}"` on a tensor
    that is not a scalar: a TypeError; `:d` on a float: a ValueError). The write-back
    formats the value only after the graph ran, too late to raise (fuzz v20, F42).
    Whether it fails depends on the rank and dtype only."""
    rank = tensor.shape.rank
    if rank is None:
        raise ConversionError(f"formats a tensor of unknown rank with the spec {spec!r}")
    if tensor.dtype == tf.string:
        sample = np.full([1] * rank, b"", dtype=object)
    else:
        sample = np.zeros([1] * rank, dtype=tensor.dtype.as_numpy_dtype)
    try:
        format(sample if rank else sample[()], spec)
    except (TypeError, ValueError) as exc:
        raise ConversionError(f"formats a {tensor.dtype.name} tensor of rank {rank} with "
                              f"the spec {spec!r}, which raises {type(exc).__name__} in "
                              "Python") from exc


@once
def install_format_hooks() -> None:
    """Formatting a symbolic tensor during a trace yields a marker that the write-back
    replaces with the formatted run-time value (so `print(f"{loss}")` prints numbers)."""
    cls = ops.SymbolicTensor
    originals = {name: getattr(cls, name) for name in ("__format__", "__str__", "__repr__")}

    def make(name, conversion):
        def method(self, *args):
            tracer = active.get()
            if tracer is None:
                return originals[name](self, *args)
            if args and args[0]:
                check_format_spec(self, args[0])
            return tracer.format_marker(self, conversion, args[0] if args else "")
        return method

    cls.__format__ = make("__format__", "f")
    cls.__str__ = make("__str__", "s")
    cls.__repr__ = make("__repr__", "r")
