"""Gathers janus builds whose index is in range by construction: they cannot raise.

graphgen/dead_ends.py keeps every op that may raise on its values (an `Assert` per loop
iteration keeps a body's, the whole graph fetches its dead ends) and orders it after the
in-graph guards. A gather janus makes itself at a position it bounds needs neither:

    tf.gather(uniforms, count)      count < K, the uniforms fed (graphgen/loop_draws.py)
    tf.gather(stacked, i)           i < len(stacked), a loop's position over a list
                                    (graphgen/values.py `DynamicList.item`)

`mark` records such an op (per graph, by name); `dead_ends.may_raise` leaves it out.
No janus imports.
"""
from __future__ import annotations

import weakref

_MARKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> op names


def mark(tensor):
    """Record `tensor`'s op as a gather whose index is in range by construction (see the
    module docstring); returns `tensor`."""
    _MARKED.setdefault(tensor.graph, set()).add(tensor.op.name)
    return tensor


def marked(op) -> bool:
    """Whether `op` was `mark`ed."""
    return op.name in _MARKED.get(op.graph, ())
