"""Python numbers the profiled calls read from the heap (an object's attribute, a global,
a dict's item), and which of them changed between profiled calls: data, not structure.
The first graph feeds those as scalar tensors (graphgen/varying_numbers.py) instead of
guarding a value the next call would fail (the ladder's second generation, saved):

    self.running_reward = 0.05 * r + 0.95 * self.running_reward
        profiled calls read 0.0, 0.52, 1.01      -> varies: fed from the first graph
    for _ in range(self.depth): ...               read 3, 3, 3 -> stays guarded

A read is keyed by its holder and name (`(id(agent), "running_reward")`, a module's
globals by its namespace dict); only the first read of each call counts (the value the
call started with, which a graph imports). Ids mean nothing in another process: this is
kept beside the Profile (`of`), never recorded with it (janus/cache).

A number a trace could not feed (a count, a shape, a dict key: the trace failed, and
succeeded with it guarded) is remembered by role (`unfed`): later generations guard it.
"""
from __future__ import annotations

import types
import weakref

import numpy as np

LENGTH = "len"
"""A list's length is keyed as `(id(holder), (LENGTH, name))`."""

MAX_KEYS = 4096
"""Heap numbers watched per profile (beyond, reads of new ones are not recorded)."""


def is_number(value) -> bool:
    """A Python int or float, or a numpy number janus feeds (not a bool:
    janus/ladder.is_fed_number)."""
    kind = type(value)
    return kind is int or kind is float or isinstance(value, (np.integer, np.floating))


def holder_of(obj):
    """What a read of `obj.name` is keyed by: a module by its namespace (as its globals)."""
    return vars(obj) if isinstance(obj, types.ModuleType) else obj


class NumberReads:
    """The heap numbers one function's profiled calls read (see the module docstring)."""

    def __init__(self):
        self.first: dict = {}       # (id(holder), name) -> [call, value read first in it]
        self.varying: set = set()   # keys whose first reads differed between calls
        self.unfed: set = set()     # roles a trace could not feed: kept guarded

    def read(self, call: int, holder, name, value) -> None:
        """A profiled call (`call`: its number) read the number `value` at `holder.name`."""
        try:
            key = (id(holder), name)
            entry = self.first.get(key)
        except TypeError:  # (an unhashable dict key)
            return
        if entry is None:
            if len(self.first) < MAX_KEYS:
                self.first[key] = [call, value]
            return
        if entry[0] == call:
            return  # (not the call's first read: after its own write, maybe)
        seen = entry[1]
        if type(seen) is type(value) and not seen == value:  # (as the ladder: same type)
            self.varying.add(key)
        entry[0], entry[1] = call, value

    def varies(self, holder, name) -> bool:
        try:
            return (id(holder), name) in self.varying
        except TypeError:
            return False


_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def of(profile) -> NumberReads:
    """The number reads kept beside `profile` (made on first use)."""
    reads = _READS.get(profile)
    if reads is None:
        reads = _READS[profile] = NumberReads()
    return reads


def known(profile) -> NumberReads | None:
    """The number reads kept beside `profile`, if any were recorded."""
    return _READS.get(profile)
