"""Generator rules (session 37) for Enum members as container keys (F426, F427):
`EK_W[EkSplit.TRAIN]` (a plain Enum keying module-level variables), `EK_COUNTS[EkColor.RED]
+= 1` (an IntEnum: `EK_COUNTS[1]` is the same entry), `EK_M[EkMode.EVAL] += 0.5` (a
str-mixin Enum: `EK_M['eval']` is the same entry), a Flag and a combined Flag key, a
tuple of members, a dict keyed by members made in the step, `s.d[EkColor.RED]` on the
heap, and the keys themselves handed out (`list(EK_COUNTS)`: their types show). Eagerly
each is a dict lookup; janus ran such functions plainly for good before.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_ENUMS = '''\
import enum


class EkSplit(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class EkColor(enum.IntEnum):
    RED = 1
    BLUE = 2


class EkMode(str, enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class EkPerm(enum.Flag):
    R = 1
    W = 2


EK_W = {EkSplit.TRAIN: tf.Variable(1.0), EkSplit.EVAL: tf.Variable(0.5)}
EK_COUNTS = {EkColor.RED: 0, EkColor.BLUE: 2}
EK_M = {EkMode.TRAIN: 0.0, EkMode.EVAL: 1.0}
EK_P = {EkPerm.R: 1.0, EkPerm.W: 0.5, EkPerm.R | EkPerm.W: 0.25}
EK_T = {(EkSplit.TRAIN, EkColor.RED): 1.5, (EkSplit.EVAL, EkColor.RED): -0.5}
'''

_STATEMENTS = [
    ["acc = acc * EK_W[EkSplit.TRAIN]"],
    ["EK_W[EkSplit.EVAL].assign_add(0.25)", "acc = acc + EK_W[EkSplit.EVAL]"],
    ["EK_COUNTS[EkColor.RED] += 1", "k = k + EK_COUNTS[1]"],
    ["EK_COUNTS[1] += 2", "acc = acc + float(EK_COUNTS[EkColor.RED] % 3)"],
    ["EK_M[EkMode.EVAL] += 0.5", "acc = acc + EK_M['eval']"],
    ["acc = acc * EK_P[EkPerm.R | EkPerm.W] + EK_P[EkPerm.W]"],
    ["acc = acc * EK_T[(EkSplit.TRAIN, EkColor.RED)]"],
    ["ek = {EkColor.BLUE: acc, EkSplit.EVAL: 2.0}",
     "acc = ek[EkColor.BLUE] * ek[EkSplit.EVAL]"],
    ["s.d[EkColor.RED] = s.d.get(EkColor.RED, 0) + 1", "k = k + s.d.get(1, 0)"],
    ["out.append(list(EK_COUNTS))"],
    ["if EK_COUNTS[EkColor.RED] > 2:", "    acc = acc - 0.25"],
    ["out.append([type(key).__name__ for key in EK_M])"],
]


@rule(WEIGHT, max_depth=2)
def enum_keys(g):
    """(F426, F427) A dict keyed by Enum members (plain, IntEnum, str-mixin, Flag, tuples
    of them; module-level, on the heap, made in the step) read and updated, by the member
    or by the int/str it equals."""
    _helper(g, _ENUMS)
    first = g.choice(_STATEMENTS)
    if g.chance(0.5):
        return first
    return first + g.choice(_STATEMENTS)
