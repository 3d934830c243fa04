"""Library code reading a plain record of the program's, made to read it through the
hooks (F266).

graphgen/past_hooks.py refuses a library call that reads an object's contents past
janus's hooks. Where the object is a plain record (an instance of a class of the
program's whose fields are its instance dict: a dataclass, a config object) and the
fields the call reads hold numbers, text or tuples of them, the call is made instead on
those fields as janus reads them, through its hooks (`runtime.ld_attr`: guarded by value,
or fed to the graph when they change per call, as `cfg.lr` in converted code is):

    "{0.lr} {0.name:>4}".format(cfg)     "{} {:>4}".format(<cfg.lr>, <cfg.name>)
    "{c.dims[1]}".format_map({"c": cfg}) "{}".format(<cfg.dims>[1])
    dataclasses.asdict(s.cfg)            {"lr": <s.cfg.lr>, ...} (nested dataclasses too)
    dataclasses.astuple(s.cfg)           (<s.cfg.lr>, ...)

(A fed number formatted is text the write-back fills in, as in an f-string:
graphgen/formatted_text.py.) Still refused: a field that is a property or other
descriptor, a class with `__getattribute__` or `__slots__`, a field holding a list, a
tensor or another object, a record formatted whole (`"{0}".format(cfg)`: its
`__format__`/`__repr__`), one reached through a container (`"{0[0].lr}".format([cfg])`),
a nested format spec, `dict_factory=`, and the other content readers (`copy.copy`,
`pickle.dumps`...).
"""
from __future__ import annotations

import _string
import dataclasses
import string
from typing import Callable

from janus.graphgen.unconverted_reads import immutable
from janus.graphgen.values import SymbolicScalar
from janus.transform.runtime import is_user_class

_MAX_DEPTH = 4  # (a dataclass of dataclasses: asdict recurses)


def _field(obj, name, read):
    """`obj.name` of a plain record (found in its instance dict, no data descriptor of its
    class in front of it) as janus reads it through its hooks (`read`), else raise
    _Unknown."""
    cls = type(obj)
    if not is_user_class(cls) or cls.__getattribute__ is not object.__getattribute__ or \
            type(name) is not str:
        raise _Unknown
    found = getattr(obj, "__dict__", None)
    if type(found) is not dict or name not in found:
        raise _Unknown
    for base in cls.__mro__:
        attribute = base.__dict__.get(name)
        if attribute is not None and (hasattr(type(attribute), "__set__") or
                                      hasattr(type(attribute), "__delete__")):
            raise _Unknown  # (a data descriptor answers before the instance dict)
    return read(obj, name)


class _Unknown(Exception):
    """A read no guard can check."""


def _leaf(value):
    """A field's value as read, if a library may read it as it is: a number (fed or
    not), text, a tuple of them."""
    if immutable(value) or isinstance(value, SymbolicScalar):
        return value
    if type(value) is tuple and all(_leaf(v) is v for v in value):
        return value
    raise _Unknown


def _dataclass(obj, read, as_dict: bool, depth: int = 0):
    """What `dataclasses.asdict`/`astuple` of obj gives, from its fields read through the
    hooks (the dataclasses among them likewise)."""
    if depth > _MAX_DEPTH or not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        raise _Unknown
    items = []
    for field in dataclasses.fields(obj):
        value = _field(obj, field.name, read)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = _dataclass(value, read, as_dict, depth + 1)
        else:
            value = _leaf(value)
        items.append((field.name, value))
    return dict(items) if as_dict else tuple(v for _, v in items)


def held(values, depth: int = 0) -> list:
    """`values` and what the lists, tuples and dicts among them hold (a located record in
    a dict handed to `format_map` or `pickle.dumps` is read too: F290)."""
    found = []
    for value in values:
        found.append(value)
        if depth < 3 and type(value) in (list, tuple, dict):
            found += held(value.values() if type(value) is dict else value, depth + 1)
    return found


def _format_field(root, steps: list, concerns: dict, read):
    """What a format field reads of a located record, read through the hooks, or
    _NOT_A_RECORD (a field reaching none); raise _Unknown where no hook can read it."""
    if id(root) not in concerns:
        if any(id(v) in concerns for v in held([root])):
            raise _Unknown  # (through a container: which record it holds is unguarded)
        return _NOT_A_RECORD
    if not steps:
        raise _Unknown  # (the record formatted whole: its `__format__`, `__repr__`)
    value = root
    for is_attribute, key in steps:
        if is_attribute:
            value = _field(value, key, read)
        elif type(value) is tuple and type(key) is int and -len(value) <= key < len(value):
            value = value[key]
        else:
            raise _Unknown
    return _leaf(value)


_NOT_A_RECORD = object()


def _format(fmt: str, positional: tuple, named: dict, concerns: dict, read):
    """(format string, arguments) that format what `fmt` formats, the fields of located
    records read through the hooks and handed as positional arguments."""
    parts, values, auto = [], [], 0
    for literal, name, spec, conversion in string.Formatter().parse(fmt):
        parts.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if spec and "{" in spec:
            raise _Unknown
        first, rest = _string.formatter_field_name_split(name)
        if first == "":
            first, auto = auto, auto + 1
        if type(first) is int:
            if not 0 <= first < len(positional):
                raise _Unknown  # (Python raises: the call runs in Python)
            root = positional[first]
        elif first in named:
            root = named[first]
        else:
            raise _Unknown
        steps = list(rest)
        value = _format_field(root, steps, concerns, read)
        if value is _NOT_A_RECORD:  # (the field as Python reads it, a value of the trace)
            value = root
            for is_attribute, key in steps:
                value = getattr(value, key) if is_attribute else value[key]
        parts.append("{" + str(len(values)) + (f"!{conversion}" if conversion else "") +
                     (f":{spec}" if spec else "") + "}")
        values.append(value)
    return "".join(parts), tuple(values)


def through_hooks(tracer, fn, args: tuple, kwargs: dict, read: Callable,
                  located: Callable):
    """`(fn, args, kwargs)` to call instead of library call `fn(*args, **kwargs)`, which
    reads the contents of the program's records janus locates (`located(value)`),
    reading the fields it reads through the hooks (`read(obj, name)`: the trace's
    attribute read), or None (the module docstring)."""
    concerns = {id(v): v for v in held(list(args) + list(kwargs.values())) if located(v)}
    if not concerns:
        return None
    try:
        if fn is dataclasses.asdict or fn is dataclasses.astuple:
            if kwargs or len(args) != 1 or id(args[0]) not in concerns:
                return None
            made = _dataclass(args[0], read, fn is dataclasses.asdict)
            return (dict if type(made) is dict else tuple), (made,), {}
        fmt = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "")
        if type(fmt) is not str or name not in ("format", "format_map"):
            return None
        if name == "format_map":
            if len(args) != 1 or kwargs or type(args[0]) is not dict or \
                    tracer.source_of(args[0]) is not None:
                return None  # (a dict of the heap: what it holds is not guarded)
            positional, named = (), args[0]
        else:
            positional, named = args, kwargs
        text, values = _format(fmt, positional, named, concerns, read)
        return text.format, values, {}
    except (_Unknown, ValueError):
        return None
