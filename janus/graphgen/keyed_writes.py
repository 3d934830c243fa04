"""Heap dicts the function only writes to, with keys the graph computes.

A dict written with a key that changes from call to call (a step counter, an argument
janus feeds to the graph, text formatted from one) cannot be a copy whose keys the trace
knows: Python hashes the key's value, which only the run knows (F145). A heap dict the
trace writes to before reading it becomes a `WriteOnlyDict` instead (`plan.write_only`):

    s.loss_at[s.steps] = loss          # s.steps fed: the graph's result
    G_LOG[(n, "acc")] = float(acc)     # a tuple key holding a fed number
    s.seen[f"step{n}"] = acc           # text formatted from a fed number

record the writes in program order; the write-back does `d[key] = value` for each after
the graph ran, with the keys' values from its outputs. Its keys and items are neither
read nor assumed (no guard on its keys: the dict grows every call). Reading it in the
same call (`d[k]`, `k in d`, `len(d)`, a method, handing it to a library) refuses the
trace (`WriteOnlyDictRead`): janus copies it again and the key's number stays guarded,
as before.
"""
from __future__ import annotations

from janus.errors import ConversionError
from janus.graphgen import formatted_text
from janus.graphgen.values import SymbolicScalar, _NotAPythonValue


class KeyedWrite(ConversionError):
    """A heap dict copy written with a key the graph computes, before any read of it: the
    trace is redone with the dict write-only (`expr`: its source)."""

    def __init__(self, expr: str):
        super().__init__(f"{expr} is written with a key that changes from call to call")
        self.expr = expr


class WriteOnlyDictRead(ConversionError):
    """A write-only dict read in the call: the trace is redone with it copied again."""

    def __init__(self, reason: str, expr: str):
        super().__init__(reason)
        self.expr = expr


def computed_key(key) -> bool:
    """Whether `key` (or a part of a tuple key) is a value only the graph's run knows."""
    if type(key) is tuple:
        return any(computed_key(part) for part in key)
    return isinstance(key, SymbolicScalar) or formatted_text.holds_marker(key)


def refuse_computed_key(obj, key, tracer) -> None:
    """`obj[key] = ...` with a computed key: a heap dict copy not read yet in this trace
    becomes write-only (KeyedWrite); otherwise the key's own refusal stands (its hash)."""
    if type(obj) is dict and computed_key(key) and id(obj) in tracer.copy_sources and \
            id(obj) not in tracer.read_copies:
        expr = tracer.copy_sources[id(obj)].expr
        # (a copy although the plan has it write-only: a dict Keras tracks, or one the
        # trace met first through another path: its key's refusal stands)
        if expr not in tracer.plan.read_dicts and expr not in tracer.plan.write_only:
            raise KeyedWrite(expr)


class WriteOnlyDict(_NotAPythonValue):
    """Stands in for a heap dict the function only writes items to: `writes` are its
    (key, value) pairs in program order, written back after the graph ran."""

    _what = "heap dict the function only writes to"

    def __init__(self, expr: str):
        self.expr = expr
        self.writes: list = []

    def _refuse(self, what: str):
        raise WriteOnlyDictRead(f"{what} of {self.expr}, a dict janus took for write-only "
                                "(written with a key that changes per call)", self.expr)

    def __setitem__(self, key, value):
        self.writes.append((key, value))

    def __getitem__(self, key):
        self._refuse("an item read")

    def __delitem__(self, key):
        self._refuse("an item deleted")

    def __contains__(self, key):
        self._refuse("`in`")

    def __iter__(self):
        self._refuse("iterating")

    def __len__(self):
        self._refuse("len()")

    def __reversed__(self):
        self._refuse("reversed()")

    def __or__(self, other):
        self._refuse("`|`")

    __ror__ = __ior__ = __or__

    def __getattr__(self, name):  # d.get, d.items(), d.update...: a dict's own methods
        if name not in _DICT_METHODS:
            raise AttributeError(name)
        self._refuse(f"`.{name}`")


_DICT_METHODS = frozenset(name for name in dir(dict) if not name.startswith("_"))
