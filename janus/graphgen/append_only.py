"""A heap list the function only appends to, as a trace holds it (plan.append_only,
plan.fed_lengths): its appends recorded and replayed after the graph ran, `len()` answered
from its fed length, every other read janus's limit (never Python's TypeError about the
stand-in, which would be taken for the user's error: F381).

    s.hist.append(loss)        recorded: written back after the run, by the same calls
    len(s.hist)                its length fed: `base + appended` (stand_in_calls.py);
                               not fed: UnfedLength, the trace redone with it fed
    s.hist[-1], for v in ...   refused: the list is copied again (a more specialized plan)
"""
from __future__ import annotations

from janus.errors import ConversionError
from janus.graphgen.values import SymbolicScalar, _NotAPythonValue


class UnfedLength(ConversionError):
    """`len()` of a heap list taken as only appended to, its length not fed (an outcome
    of a rare branch reads it: `s.rec = len(s.hist)` every 25th call): the trace is
    redone with its length fed (plan.fed_lengths, `role`), one graph as the list grows."""

    def __init__(self, role: str | None):
        super().__init__("len() of a heap list janus took as only appended to")
        self.role = role


class AppendOnlyList(_NotAPythonValue):
    """A heap list the function only appends to: its length and items are not read, so
    they are not assumed (no guard on the length); the appended items are written back
    after the graph ran, by the same calls (a Keras TrackedList's `extend` wraps a dict
    its `append` keeps). Any read of its items (`[-1]`, iterating, `in`, truth) fails the
    trace as janus's limit (janus then goes back to a copy of the whole list). With `base`
    (the list's length when the call began, a fed int: plan.fed_lengths), `len()` of it
    is answered: `base` plus the items appended; without, `len()` is `UnfedLength` (the
    trace is redone with it fed). (Python's own TypeError for these would be taken for
    the user's error: F381.)"""

    _what = "heap list the function only appends to"

    def __init__(self, base: SymbolicScalar | None = None, role: str | None = None):
        self.items: list = []
        self.calls: list[str] = []  # "a" an append, "e<n>" an extend, "+<n>" a `+=`
        self.base = base
        self.role = role  # (its source's role: the one fed by `UnfedLength`)

    def __len__(self):  # (`len()` of a fed length is answered before: stand_in_calls)
        if self.base is None:
            raise UnfedLength(self.role)
        self._refuse("len() as a Python int")

    def __getitem__(self, index):
        self._refuse("reading an item")

    def __iter__(self):
        self._refuse("iterating")

    def __contains__(self, value):
        self._refuse("`in`")

    def __reversed__(self):
        self._refuse("iterating")

    def length(self):
        """`len()` of the list, or None where its length is not fed."""
        return None if self.base is None else self.base + len(self.items)

    def append(self, value):
        self.items.append(value)
        self.calls.append("a")

    def extend(self, values):
        values = list(values)
        self.items.extend(values)
        self.calls.append(f"e{len(values)}")

    def __iadd__(self, values):
        values = list(values)
        self.items.extend(values)
        self.calls.append(f"+{len(values)}")
        return self
