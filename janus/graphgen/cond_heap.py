"""Heap attributes a generalized `if` writes, as outputs of its `tf.cond`.

    if ids == answer:                 matches = tf.cond(<ids == answer>,
        s.matches += 1       ->                         lambda: s.matches + 1,
                                                        lambda: s.matches)
                                      s.matches = matches          (deferred, as any write)

A trace defers heap writes to the ledger (fallback/heap.py). Each branch of a tf.cond
is traced once, from the ledger as it was before the `if`; the attributes the branch
traced first wrote become outputs of both branches (the other's value: what it wrote,
else the value from before the `if`), and the ledger after the `if` holds the cond's
outputs. Where the branch traced second writes an attribute the first did not, the
tf.cond is traced once more with both's (`Retrace`). Only attribute writes of objects
janus locates are carried, of values a tf.cond can output (a tensor, a Python number:
fed as a number of its type); prints, deletions and in-place changes keep the `if`
specialized (graphgen/loop_heap.py does the same for loops).
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen.loop_heap import written
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import SymbolicScalar

_NUMBERS = (bool, int, float)


def _output(value, what: str):
    """(tensor, kind) for a value a tf.cond branch outputs; kind None for a tensor."""
    if isinstance(value, SymbolicScalar):
        return value.tensor, value.kind
    if type(value) in _NUMBERS:
        if type(value) is int and not -2 ** 62 < value < 2 ** 62:
            raise ConversionError(f"{what} writes a Python int beyond what a graph "
                                  "computes exactly")
        return tf.constant(value, SymbolicScalar._dtype(type(value))), type(value)
    if is_symbolic(value) or isinstance(value, tf.Tensor):
        return value, None
    raise ConversionError(f"{what} writes a {type(value).__name__} to a heap attribute "
                          "(only tensors and Python numbers are carried out of it)")


class Retrace(Exception):
    """The branch traced second wrote attributes the first did not: trace both again."""


class CondWrites:
    """The heap attributes both branches of one tf.cond write (see the module docstring);
    `read(obj, name)` reads an attribute as the trace does (imported, guarded)."""

    def __init__(self, ledger, read, what: str):
        self.ledger, self.read, self.what = ledger, read, what
        self.mark, self.attrs = ledger.mark(), dict(ledger.attrs)
        self.slots: list | None = None  # (key, obj, source, name), by the first branch
        self.kinds: list = []
        self.retraced = False

    def start(self, first: bool = False) -> None:
        """Before a branch (`first`: the first traced): the ledger as it was before the
        `if`."""
        if first:
            self.kinds = []
        del self.ledger.log[self.mark:]
        self.ledger.attrs = dict(self.attrs)

    def outputs(self) -> list:
        """After a branch: its values of the carried attributes (tensors)."""
        keys = written(self.ledger, self.mark, self.what)
        entries = self.ledger.attrs
        known = self.slots is not None
        self.slots = self.slots or []
        extra = [k for k in keys if k not in {slot[0] for slot in self.slots}]
        self.slots += [(k, entries[k][0], entries[k][1], k[1]) for k in extra]
        if extra and known:
            if self.retraced:
                raise ConversionError(f"the branches of {self.what} write other heap "
                                      "attributes when traced again")
            self.retraced, self.kinds = True, []
            raise Retrace()
        values = []
        for key, obj, _, name in self.slots:
            value = entries[key][2] if key in keys else self._before(key, obj, name)
            tensor, kind = _output(value, self.what)
            values.append((tensor, kind))
        kinds = [(kind, tensor.dtype) for tensor, kind in values]
        if self.kinds and kinds != self.kinds:
            raise ConversionError(f"{self.what} writes a heap attribute a value of another "
                                  "type than the other branch leaves there")
        self.kinds = kinds
        return [tensor for tensor, _ in values]

    def _before(self, key, obj, name):
        if key in self.attrs:
            return self.attrs[key][2]
        own = getattr(obj, "__dict__", None)
        if own is not None and name not in own:  # (`o.scale` the class's: Python's other
            raise ConversionError(f"{self.what} sets `{name}` of a "  # path leaves none)
                                  f"{type(obj).__name__} that has none of its own")
        return self.read(obj, name)

    def set(self, results) -> None:
        """After the tf.cond: its outputs are the attributes' values."""
        self.start()
        for (_, obj, source, name), tensor, (kind, _) in zip(self.slots or (), results,
                                                              self.kinds):
            value = tensor if kind is None else SymbolicScalar(tensor, kind)
            self.ledger.set_attr(obj, source, name, value)
