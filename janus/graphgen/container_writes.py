"""Library calls that change a list, dict or set of the heap in place.

A trace works on copies of the heap's containers and writes a copy back only where the
function changed it. A container method says so by its name (`s.hist.append(t)`); so do
these, which take the container as their first argument (F173: their changes were lost):

    heapq.heappush(s.queue, (due, task))       bisect.insort(s.milestones, step)
    operator.setitem(s.d, k, v)                list.append(s.hist, t)     dict.update(s.d, ...)

and any other call that changes a copy it was handed (seen after it: its contents differ).
Writes that go around the ledger altogether (`object.__setattr__(o, n, v)`, `vars(o)`,
`o.__dict__` of a heap object) refuse the trace.
"""
from __future__ import annotations

import bisect
import heapq
import operator

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen.append_only import AppendOnlyList

MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
    "setdefault", "popitem", "__setitem__", "__delitem__", "add", "discard",
    "difference_update", "intersection_update", "symmetric_difference_update",
    "__iadd__", "__imul__", "__ior__", "__iand__", "__ixor__", "__isub__"})
"""Methods of a list, dict or set that change it."""

CONTAINERS = (list, dict, set, AppendOnlyList)

_FUNCTIONS = frozenset(id(f) for f in (
    heapq.heappush, heapq.heappop, heapq.heapreplace, heapq.heappushpop, heapq.heapify,
    bisect.insort, bisect.insort_left, bisect.insort_right, operator.setitem,
    operator.delitem, operator.iadd, operator.iconcat, operator.imul, operator.ior,
    operator.iand, operator.ixor, operator.isub))
"""Functions that change the container they are given first."""

_AROUND = frozenset(id(f) for f in (object.__setattr__, object.__delattr__, vars))


def mutated(fn, owner, args: tuple) -> list:
    """The containers a call of `fn` changes by its name (the module docstring)."""
    name = user_attributes.get(fn, "__name__", "")
    if owner is not None and isinstance(owner, CONTAINERS) and name in MUTATORS:
        return [owner]
    first = args[0] if args else None
    if isinstance(first, CONTAINERS) and (
            getattr(fn, "__objclass__", None) in (list, dict, set) and name in MUTATORS or
            id(fn) in _FUNCTIONS):
        return [first]
    return []


def refuse_around(tracer, fn, args: tuple) -> None:
    """Refuse a write to a heap object that would go around janus's ledger."""
    if id(fn) in _AROUND and args and id(args[0]) not in tracer.local_objects and \
            tracer.source_of(args[0]) is not None:
        raise ConversionError(f"calls {getattr(fn, '__qualname__', fn)} on an object of the "
                              "heap (a write there would go around janus's deferred writes)")


def _contents(value) -> tuple:
    if isinstance(value, dict):
        return tuple((id(k), id(v)) for k, v in value.items())
    return tuple(map(id, value))


def watch(tracer, args: tuple, kwargs: dict, skip: list) -> list:
    """(copy, its contents) of the heap copies handed to a call (not in `skip`)."""
    return [(value, _contents(value)) for value in list(args) + list(kwargs.values())
            if isinstance(value, (list, dict)) and id(value) in tracer.copy_sources and
            not any(value is s for s in skip)]


def changed(watched: list) -> list:
    """The watched copies whose contents the call changed."""
    return [value for value, before in watched if _contents(value) != before]
