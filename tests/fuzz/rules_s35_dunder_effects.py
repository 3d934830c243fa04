"""Generator rules (session 35) for effects in the program's own dunders (F407): an
operator, a comparison, a truth test, `len()`, unpacking, `in`, `str()`/`repr()`, an
f-string or a dict display runs a counting `__add__`/`__radd__`/`__neg__`/`__lt__`/
`__bool__`/`__len__`/`__iter__`/`__contains__`/`__str__`/`__repr__`/`__format__`/
`__hash__` of the program's object (a global, an attribute or a list item) — then a
`raise` on some calls. A profiled call, or the eager rerun after an in-graph guard
failed, that raised with no effect counted was rerun plainly: the dunder's effect twice.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CLASSES = '''\
class UMeter:
    """The program's object whose every dunder counts its use."""
    def __init__(self):
        self.n = 0

    def _count(self, value):
        self.n += 1
        return value

    def __add__(self, other):
        return self._count(other)

    def __radd__(self, other):
        return self._count(other)

    def __neg__(self):
        return self._count(0.5)

    def __lt__(self, other):
        return self._count(self.n % 2 == 0)

    def __bool__(self):
        return self._count(self.n % 3 != 1)

    def __len__(self):
        return self._count(2)

    def __iter__(self):
        return self._count(iter((0.5, 1.5)))

    def __contains__(self, item):
        return self._count(False)

    def __str__(self):
        return self._count("um")

    def __repr__(self):
        return self._count("UMeter()")

    def __format__(self, spec):
        return self._count("u")

    def __hash__(self):
        return self._count(11)


class UHold:
    def __init__(self):
        self.meter = UMeter()


U_METER = UMeter()
U_HOLD = UHold()
U_METERS = [UMeter()]
'''

_METERS = ["U_METER", "U_HOLD.meter", "U_METERS[0]"]

_USES = [  # (a use of `{m}`, the program's object, that runs one of its dunders)
    "acc = acc * ({m} + 1.0)",
    "acc = acc * (1.0 + {m})",
    "acc = acc + (-{m})",
    "acc = acc + (1.0 if {m} < 3 else 2.0)",
    "acc = acc * (0.5 if {m} else 1.5)",
    "acc = acc * len({m})",
    "u_a, u_b = {m}\nacc = acc * u_a + u_b",
    "acc = acc + (1.0 if 3 in {m} else 0.25)",
    "acc = acc * len(str({m}) + repr({m}))",
    "acc = acc * len(f'{{{m}:>3}}')",
    "acc = acc * len({{{m}: 1.0}})",
]


@rule(0.6, max_depth=1)
def dunder_effect_then_raise(g):
    """(F407) A dunder of the program's object with an effect, run by an operator or a
    builtin, then a `raise` on some calls."""
    _helper(g, _CLASSES)
    meter = g.choice(_METERS)
    use = g.choice(_USES).format(m=meter)
    test = g.choice([f"tf.reduce_sum(acc) > {g.choice(['2.0', '6.0', '30.0'])}",
                     f"n % {g.choice(['3', '4'])} == 2", g.pcond(),
                     f"{meter}.n % 2 == 1", f"{meter}.n % 3 != 0"])  # (early calls too)
    return use.split("\n") + [f"if {test}:", "    raise FloatingPointError('diverged')"]
