"""Generator rules (session 28, after v73) from session 28's probes of the heap read or
written by calls rather than statements: `setattr`/`delattr`/`o.__setattr__` (F214), a
`functools.cached_property` and a property whose getter is a partial (F215), methods
replaced on a class, stored on an object or bound by `__call__` (F216), defaults rebound
(F217), `dir(obj)` and `isinstance` against an ABC or a Protocol (F219), a user
`__eq__`/`__hash__` run by a builtin (F218). Each change is made by a call under a Python
test (so some calls change it and the next ones read it) and read by the same call or a
later one.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_WEIGHT = 0.4


def _changed_then_used(g, change: str, use: str) -> list[str]:
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


_SETATTR = '''\
class SRec:
    """Attributes a step sets and deletes by calls."""
    def __init__(self):
        self.n = 0
        self.tag = "a"
        self.tmp = 1.0


class SSeen:
    seen = 0


SREC = SRec()
'''

_SETATTR_SETS = [
    'setattr(SREC, "n", SREC.n + 1)',
    'SREC.__setattr__("tag", "b" if flag else "a")',
    'object.__setattr__(SREC, "n", SREC.n + n % 3)',
    'setattr(SSeen, "seen", SSeen.seen + 1)',
    'setattr(SREC, "tmp", float(n))',
    'delattr(SREC, "tmp") if hasattr(SREC, "tmp") else setattr(SREC, "tmp", 2.0)',
]
_SETATTR_USE = ('acc = acc + float(SREC.n) * 0.01 + float(SSeen.seen) * 0.01 + '
                '(0.5 if SREC.tag == "b" else 0.0) + getattr(SREC, "tmp", -1.0) * 0.1')


@rule(_WEIGHT, max_depth=2)
def attribute_set_by_a_call(g):
    """(F214) An attribute set or deleted by `setattr`/`delattr`/`o.__setattr__`."""
    _helper(g, _SETATTR)
    return _changed_then_used(g, g.choice(_SETATTR_SETS), _SETATTR_USE)


_CACHED = '''\
def _cp_scaled(self, k):
    self.reads += 1
    return self.base * k


class CProp:
    """A cached_property and a property whose getter is a partial."""
    def __init__(self):
        self.base = 1.0
        self.builds = 0
        self.reads = 0

    @functools.cached_property
    def factor(self):
        self.builds += 1
        return self.base * 2.0

    scaled = property(functools.partial(_cp_scaled, k=3.0))


CPROP = CProp()
'''

_CACHED_SETS = [
    'CPROP.__dict__.pop("factor", None)',
    "CPROP.base = float(n % 3)",
    "CPROP.base = float(n % 3); CPROP.__dict__.pop('factor', None)",
]
_CACHED_USES = [
    "acc = acc * CPROP.factor + float(CPROP.builds) * 0.01",
    "acc = acc + CPROP.scaled * 0.1 + float(CPROP.reads) * 0.01",
]


@rule(_WEIGHT, max_depth=2)
def cached_property_read(g):
    """(F215) A cached_property invalidated by a call, and a partial-getter property."""
    _helper(g, _CACHED)
    return _changed_then_used(g, g.choice(_CACHED_SETS), g.choice(_CACHED_USES))


_METHODS = '''\
class MNet:
    """Methods a step calls, replaced on the class or stored on the object."""
    scale = 0.5

    def fwd(self, a):
        return a * 2.0

    def __call__(self, a):
        return a + 1.0

    @classmethod
    def mul(cls, a):
        return a * cls.scale


def _m_alt(self, a):
    return a - 1.0


def _m_call(self, a):
    return a * 3.0


MFWDS = [MNet.fwd, _m_alt]
MCALLS = [MNet.__call__, _m_call]
MMULS = [MNet.mul.__func__, lambda cls, a: a + cls.scale]
MNET, MOTHER = MNet(), MNet()
MNET.cb = MNET.fwd
'''

_METHOD_SETS = [
    "MNet.fwd = MFWDS[n % 2]",
    "MNet.__call__ = MCALLS[n % 2]",
    "MNet.mul = classmethod(MMULS[n % 2])",
    "MNET.cb = MNET.mul if flag else MOTHER.fwd",
]
_METHOD_USES = [
    "acc = MNET.fwd(acc)",
    "acc = MNET(acc)",
    "acc = MNET.mul(acc) + MNet.mul(acc)",
    "acc = MNET.cb(acc)",
]


@rule(_WEIGHT, max_depth=2)
def method_replaced(g):
    """(F216) A method replaced on its class, or a bound method stored on an object."""
    _helper(g, _METHODS)
    return _changed_then_used(g, g.choice(_METHOD_SETS), g.choice(_METHOD_USES))


_DEFAULTS = '''\
def dscaled(a, k=1.0, *, b=0.0):
    return a * k + b
'''

_DEFAULT_SETS = [
    "dscaled.__defaults__ = (float(n % 3),)",
    'dscaled.__kwdefaults__ = {"b": float(n % 2)}',
    'dscaled.__kwdefaults__["b"] = float(k % 3)',
]


@rule(_WEIGHT, max_depth=2)
def defaults_rebound(g):
    """(F217) A helper's defaults rebound by a call, used by it or the next calls."""
    _helper(g, _DEFAULTS)
    return _changed_then_used(g, g.choice(_DEFAULT_SETS), "acc = dscaled(acc)")


_CLASSES = '''\
import abc
import typing


class AScal(abc.ABC):
    pass


@typing.runtime_checkable
class AHasScale(typing.Protocol):
    scale: float


class AThing:
    def __init__(self):
        self.lr = 0.1


ATHING = AThing()
'''

_CLASS_SETS = [
    "ATHING.scale = 1.0",
    "ATHING.wd = float(n)",
    'delattr(ATHING, "scale") if hasattr(ATHING, "scale") else None',
    "AScal.register(AThing)",
]
_CLASS_USES = [
    "acc = acc * 2.0 if isinstance(ATHING, AHasScale) else acc",
    "acc = acc + (1.0 if isinstance(ATHING, AScal) else 0.0)",
    'acc = acc + float(len([m for m in dir(ATHING) if not m.startswith("_")])) * 0.1',
]


@rule(_WEIGHT, max_depth=2)
def class_answers(g):
    """(F219) `dir(obj)`, `isinstance` against an ABC or a Protocol, after a change."""
    _helper(g, _CLASSES)
    return _changed_then_used(g, g.choice(_CLASS_SETS), g.choice(_CLASS_USES))


_TAGS = '''\
import operator


class ETag:
    """Compared and hashed by a field."""
    def __init__(self, s):
        self.s = s

    def __eq__(self, other):
        return isinstance(other, ETag) and self.s == other.s

    def __hash__(self):
        return len(self.s)


ETAGS = [ETag("a"), ETag("bb"), ETag("ccc")]
EQ = ETag("bb")
'''

_TAG_SETS = [
    'EQ.s = "ccc" if flag else "bb"',
    'ETAGS[0].s = "a" * (1 + n % 3)',
]
_TAG_USES = [
    "acc = acc + float(ETAGS.count(EQ)) * 0.1",
    "acc = acc + float(hash(EQ)) * 0.01",
    "acc = acc + float(len(set(ETAGS))) * 0.1",
    "acc = acc + (1.0 if operator.eq(ETAGS[0], EQ) else 0.0)",
    "acc = acc + float(ETAGS.index(EQ) if EQ in ETAGS else -1) * 0.1",
]


@rule(_WEIGHT, max_depth=2)
def user_eq_run_by_a_builtin(g):
    """(F218) A user `__eq__`/`__hash__` run by a builtin or a list method."""
    _helper(g, _TAGS)
    return _changed_then_used(g, g.choice(_TAG_SETS), g.choice(_TAG_USES))
