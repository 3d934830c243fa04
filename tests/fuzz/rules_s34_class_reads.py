"""Generator rules (session 34) for what a class gives the objects a step reads it through
(F394, F395): a registry of classes instantiated in the step (`CLOSSES[...]()`, `CLoss()`,
`CTop()`) reading class defaults, a class-level dict and methods, and a `super()` chain
(`CTop.fwd` -> `super().fwd`, `super().__init__`, `super().bias`) on a heap object and on
objects made in the step. A call (under a Python test, so some calls change it and the
next ones read it) edits a class default, an item of a class-level dict, or replaces a
method, `__call__` or `__init__` on the class or a base of the chain. Before F394/F395's
fix the graphs kept the traced class value or method (no guard on the class).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CLASSES = '''\
class CLoss:
    """A loss of a registry: class defaults, a class-level dict, a method, a call."""
    delta = 1.0
    table = {"a": 1.0}

    def __init__(self, k=1.0):
        self.k = k

    def scale(self, a):
        return a * self.delta * self.k

    def __call__(self, a):
        return a + self.delta * self.table["a"]


class CLossB(CLoss):
    def scale(self, a):
        return super().scale(a) * 0.5 + self.delta


CLOSSES = {"a": CLoss, "b": CLossB}


def _cscale2(self, a):
    return a * 2.0 - self.delta


def _cscale3(self, a):
    return a * 0.5 + 1.0


def _ccall2(self, a):
    return a - self.delta * 2.0


CSCALES = [CLoss.scale, _cscale2, _cscale3]
CCALLS = [CLoss.__call__, _ccall2]


class CBase:
    """The base of a super() chain."""
    bias = 0.5

    def __init__(self):
        self.m = 1.0

    def fwd(self, a):
        return a * self.bias


class CMid(CBase):
    pass


class CTop(CMid):
    def __init__(self):
        super().__init__()
        self.t = 2.0

    def fwd(self, a):
        return super().fwd(a) + self.t * self.m + super().bias


def _cinit2(self):
    self.m = 3.0


def _cfwd2(self, a):
    return a + 1.0


def _cfwd3(self, a):
    return a * a * 0.1


CTOP = CTop()
CFWDS = [CBase.fwd, _cfwd2, _cfwd3]
CINITS = [CBase.__init__, _cinit2]
'''

_SCALE_A = "acc = acc + tf.cast(CLOSSES['a' if flag else 'b']().scale(tf.cast(acc, " \
    "tf.float32)), acc.dtype) * 0.1"
_SCALE_B = "acc = acc + tf.cast(CLossB().scale(tf.cast(acc, tf.float32)), acc.dtype) * 0.1"
_CALL = "acc = acc + tf.cast(CLoss(2.0)(tf.cast(acc, tf.float32)), acc.dtype) * 0.1"
_TOP = "acc = acc + tf.cast(CTOP.fwd(tf.cast(acc, tf.float32)), acc.dtype) * 0.1"
_MADE_TOP = "acc = acc + tf.cast(CTop().fwd(tf.cast(acc, tf.float32)), acc.dtype) * 0.1"
_CASES = [  # (a change, the reads that see it)
    ("CLoss.delta = float(n % 3) + 0.5",
     [_SCALE_A, _CALL, "acc = acc + tf.cast(CTop().m + CLoss().delta, acc.dtype)"]),
    ("CLossB.delta = float(k % 4)", [_SCALE_A, _SCALE_B]),
    ("CLoss.table['a'] = float(n % 4)", [_CALL, "k = k + int(CLoss().table['a'])"]),
    ("CLoss.scale = CSCALES[n % 3]", [_SCALE_A, _SCALE_B]),
    ("CLoss.__call__ = CCALLS[n % 2]", [_CALL]),
    ("CBase.fwd = CFWDS[n % 3]", [_TOP, _MADE_TOP]),
    ("CMid.fwd = CFWDS[k % 3]", [_TOP, _MADE_TOP]),
    ("CBase.bias = float(n % 3)", [_TOP, _MADE_TOP]),
    ("CBase.__init__ = CINITS[n % 2]", [_MADE_TOP]),
]


@rule(0.5, max_depth=2)
def class_reads(g):
    """(F394, F395) Objects made in the step from a class registry and a super() chain read
    their classes' defaults and methods; a call (under a test) edits a default or replaces
    a method, `__call__` or `__init__` on the class or a base."""
    _helper(g, _CLASSES)
    change, uses = g.choice(_CASES)
    use = g.choice(uses)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])
