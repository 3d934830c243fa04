"""Generator rules (session 38) for when a call's objects die (F437, F440-F443): the step
makes objects whose `__del__` (or a weak reference's callback) counts, and they die
later in the call or in the next one (a local deleted later, a slot or a bounded list
replacing the previous call's, an object handed to a helper that raises, caught), the
count read after. CPython frees each when its last reference goes: janus's machinery
must hold none of them longer (no reference cycle of its own: graphgen/leftover_tensors
`Watch.release`, other_threads, no nested function calling itself; no janus frame
keeping an exception it caught: janus/raised_frames.py; no temporary of converted code
keeping a stored value: F443).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_LIFETIMES = '''\
import weakref as _lt_weakref

LT_FREED = [0]
LT_SLOT = [None]
LT_KEPT = []


class LtBuf:
    """A buffer whose `__del__` counts it freed."""
    def __init__(self, v):
        self.v = v

    def __del__(self):
        LT_FREED[0] += 1


class LtHandle:
    pass


def lt_on_death(_ref):
    LT_FREED[0] += 1


def lt_scaled(buf):
    return buf.v * 0.5


def lt_check(buf, k):
    if k % 2 == 0:
        raise ValueError("even")
    return buf.v
'''

_LIVES = [
    # a local deleted a few lines later
    ["lt_t = LtBuf(acc)", "acc = acc + lt_t.v * 0.5", "del lt_t"],
    # a weak reference with a callback, alive when its object is deleted
    ["lt_h = LtHandle()", "lt_r = _lt_weakref.ref(lt_h, lt_on_death)", "del lt_h",
     "k = k + (1 if lt_r() is None else 0)"],
    # the previous call's object replaced (it dies in this call)
    ["LT_SLOT[0] = LtBuf(acc)"],
    # a bounded list of the last calls' objects
    ["LT_KEPT.append(LtBuf(acc))", "if len(LT_KEPT) > 2:", "    del LT_KEPT[0]"],
    # handed to a helper: dies when the call returns
    ["acc = acc + lt_scaled(LtBuf(acc))"],
    # handed to a helper that raises, the exception caught: dies when it is dropped
    ["try:", "    acc = acc + lt_check(LtBuf(acc), k)", "except ValueError:",
     "    k = k + 1"],
]
"""(Not drawn: a name bound in a stretch janus runs as a segment and never read again,
`lt_r = _lt_weakref.ref(lt_h, lt_on_death)` with `lt_r` unread: the segment's run drops
it at its end, before `del lt_h`, so the callback never runs: F442, open.)"""
_READS = [
    "k = k + LT_FREED[0]",
    "out.append(LT_FREED[0])",
    "acc = acc + float(LT_FREED[0]) * 0.01",
]


@rule(WEIGHT, max_depth=1)
def object_lifetimes(g):
    """(F437, F440, F441, F443) Objects dying later in the call or in the next, their
    finalizers counted; the count read in the call."""
    _helper(g, _LIFETIMES)
    lives, read = g.choice(_LIVES), g.choice(_READS)
    return g.choice([
        [read] + lives + [read],
        lives + [read],
        [f"if {g.pcond()}:"] + ["    " + line for line in lives] + [read],
    ])
