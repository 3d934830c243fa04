"""The identity of heap objects, wherever a trace observes it (F347).

A trace reads the call's objects as they are, guarded by their type: `type(args[1]) is
Node`. Where the function's answer depends on *which* object it got, that guard is not
enough (another Node passes it), so the observation becomes a guard:

    node is LAST[0]                   `args[1] is G['LAST'][0]` as the trace found it
    kids[0] is not kids[1]            (or not): both join the trace's aliases guard
    seen.add(node), d.get(node)       an object hashed by identity as a key of the call's
    memo[node] = h                    own dict or set: the same (which keys are one object)
    id(node), hash(node)              the number flows into data (a key, arithmetic,
    sorted(nodes, key=id)             output): `args[1] is <that Node>`, a graph per object
    s.cache[node]                     a key of a heap dict: its keys are the traced
                                      objects, so the key is pinned to the traced one too
    a == b, x in [a, b], {a, b}       past the hooks (F355): every object of a class
    xs.index(a), xs.count(a)          compared by identity (`compared_past_hooks`) joins
                                      the aliases guard with the others of its type read

Refused (the line runs in Python): `id()` of what the trace holds in place of the heap's
object (the copy of a heap list or dict, a tuple rebuilt item by item, an input tensor,
which is a new EagerTensor each call, a fed number) and of a number or text (guarded by
value: an equal one passes). The identity of tensors is graphgen/identity.py's.
"""
from __future__ import annotations

import builtins

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import plain_records
from janus.graphgen.keys import KEYED_METHODS
from janus.graphgen.value_kinds import _SCALARS, NUMPY_NUMBERS, is_symbolic
from janus.graphgen.values import STAND_INS
from janus.tensors import is_tensor

_IDENTITY_VALUES = (builtins.id, builtins.hash, object.__hash__)
"""Functions whose value is an object's identity (`hash`: for a class without its own)."""


def _heap_key(tracer, value):
    """The key of `value` in `tracer.heap_objects` (the heap object, or the original of a
    heap list or dict the trace copied), or None for a value not read from the heap."""
    if id(value) in tracer.heap_objects:
        return id(value)
    if id(value) in tracer.copy_sources:
        for original, (copy, _) in tracer.ledger.copies.items():
            if copy is value and original in tracer.heap_objects:
                return original
    return None


def hashed_by_identity(value) -> bool:
    """Whether `hash(value)` (and so a dict's or set's lookup) is `value`'s identity."""
    return type(value).__hash__ is object.__hash__ and not is_tensor(value) and \
        not isinstance(value, _SCALARS + NUMPY_NUMBERS + STAND_INS)


def compared_past_hooks(value) -> bool:
    """Whether `value`'s identity is what `==`, `in`, `xs.index()`, a set or a dict find
    it by (a class without its own `__eq__` or `__hash__`): code the hooks do not see
    (`a == b`, `x in [a, b]`, `{a, b}`) may observe which heap objects are one (F355)."""
    kind = type(value)
    return (kind.__eq__ is object.__eq__ or kind.__hash__ is object.__hash__) and \
        not is_tensor(value) and not isinstance(value, _SCALARS + NUMPY_NUMBERS + STAND_INS)


def compared(tracer, left, right) -> None:
    """`left is right` between two heap objects: which reads are one object joins the
    trace's aliases guard (graphgen/heap_aliases.py)."""
    if left is None or right is None:
        return
    keys = [_heap_key(tracer, left), _heap_key(tracer, right)]
    if None not in keys:
        tracer.identity_reads.update(keys)


def observe(tracer, value) -> None:
    """`value`'s identity decides what the trace did (a key of the call's own dict or
    set): if it is a heap object, which reads are one object is guarded."""
    key = _heap_key(tracer, value)
    if key is not None:
        tracer.identity_reads.add(key)


def pin(tracer, value, what: str) -> None:
    """`id(value)` (or its identity hash) flows into the trace's data: guard that the
    object read from `value`'s source is this very object; refuse where the trace holds
    a stand-in for it."""
    if value is None or type(value) is bool:
        return  # (singletons)
    if isinstance(value, STAND_INS) or isinstance(value, _SCALARS + NUMPY_NUMBERS):
        raise ConversionError(f"{what} of a number or text (janus guards it by value, "
                              "not as the object)")
    if is_symbolic(value):
        if id(value) in tracer.tensor_inputs:
            raise ConversionError(f"{what} of an input tensor (a new object on each call; "
                                  "the graph's is one)")
        return  # (a tensor the graph computes: graphgen/identity.py)
    source = tracer.source_of(value)
    if source is None:
        return  # (an object the call made)
    if id(value) in tracer.imported:
        raise ConversionError(f"{what} of {source.expr}, whose trace holds a copy of it "
                              "(the graph would give the copy's)")
    tracer.guard("id", source, value)


def key(tracer, container, value) -> None:
    """`value` used as a key of `container` (an item read, write or delete, a keyed dict or
    set method): by identity, the trace's lookup depends on which object it is."""
    for part in value if type(value) is tuple else (value,):
        if not hashed_by_identity(part) or tracer.source_of(part) is None:
            continue
        if id(container) in tracer.copy_sources:  # (a heap dict: its keys the traced ones)
            pin(tracer, part, "a dict key")
        else:
            observe(tracer, part)


def check_call(tracer, fn, args: tuple, kwargs: dict) -> None:
    """A call that reads an object's identity: `id(x)`, `hash(x)` of an object hashed by
    identity (or a tuple holding one), `sorted(xs, key=id)`, `map(id, xs)`, and the key of
    `d.get(x)`, `seen.add(x)`."""
    if any(fn is f for f in _IDENTITY_VALUES):
        for value in plain_records.held(list(args[:1])) if fn is not builtins.id else args[:1]:
            if fn is builtins.id or hashed_by_identity(value):
                pin(tracer, value, f"`{user_attributes.get(fn, '__name__', 'id')}()`")
        return
    handed = [v for v in list(args) + list(kwargs.values())
              if any(v is f for f in _IDENTITY_VALUES)]
    if handed:  # (`sorted(nodes, key=id)`: every object handed is looked at so)
        for value in plain_records.held([v for v in list(args) + list(kwargs.values())
                                         if not any(v is f for f in _IDENTITY_VALUES)]):
            if type(value) not in (list, tuple, dict) and (
                    handed[0] is builtins.id or hashed_by_identity(value)):
                pin(tracer, value, "an identity key")
        return
    owner = user_attributes.get(fn, "__self__")
    if args and isinstance(owner, (dict, set, frozenset)) and \
            user_attributes.get(fn, "__name__", "") in KEYED_METHODS:
        key(tracer, owner, args[0])
