"""Generator rules (session 37) for code that runs when an object dies (F435, F436): the
step makes an object of a class with its own `__del__`, a weak reference with a callback,
a `weakref.finalize`, each dying in the call, and reads the count their finalizers keep.
Plain Python runs the finalizer once per call, when the object dies; a graph made from a
trace would make no object (graphgen/finalizers.py: such calls are graph breaks), and a
run janus makes plainly must let the call's objects die on return as Python does
(recursion/limits.plain_call, transform/user_frames: no frame holding itself).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_FINALIZERS = '''\
import weakref as _weakref

FREED = [0]


class Scratch:
    """A per-call buffer whose `__del__` counts it freed."""
    def __init__(self, v):
        self.v = v

    def __del__(self):
        FREED[0] += 1


class Handle:
    pass


def on_death(_ref):
    FREED[0] += 1
'''

_MAKES = [
    ["Scratch(acc)"],
    ["acc = Scratch(acc * 2.0).v * 0.5"],
    ["_weakref.finalize(Handle(), on_death, None)"],
    ["fz_r = _weakref.ref(Handle(), on_death)"],
]
"""Objects that die within their statement. (Later deaths: rules_s38_lifetimes; F442,
open.)"""
_READS = [
    "k = k + FREED[0]",
    "out.append(FREED[0])",
    "acc = acc + float(FREED[0]) * 0.01",
]


@rule(WEIGHT, max_depth=2)
def finalizer_counts(g):
    """(F435, F436) An object dying in the call runs the program's `__del__` or a weak
    reference's callback, counted; the count read in the call."""
    _helper(g, _FINALIZERS)
    make, read = g.choice(_MAKES), g.choice(_READS)
    return g.choice([
        make + [read],
        [f"if {g.pcond()}:"] + ["    " + line for line in make] + [read],
        ["for _ in range(2):"] + ["    " + line for line in make] + [read],
        [read],
    ])
