"""Generator rules (session 32) for numbers every call changes that janus feeds to the
graph instead of guarding per value (F358-F360): `math` tests and roundings of a fed
float (`math.isnan`, `floor`, `fmod`, `copysign`, `divmod`), an np.float64 rate and
total on the heap (fed as float64 numpy scalars), a step counter or seed past int32
(fed as int64: `%`, `//`, comparisons). Values include edges (nan, inf, zero divisors,
negative numbers) where Python raises or numpy's types differ: results, errors, printed
text and the heap must stay plain Python's.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_FED = '''\
import math


class Fed:
    """Numbers every call changes: a float rate, an np.float64 total, a wide step."""
    def __init__(self):
        self.rate = 0.3
        self.total = np.float64(0.0)
        self.np_rate = np.float64(0.5)
        self.step = 2 ** 33
        self.low = -2 ** 40


FED = Fed()


def fed_tick(n):
    FED.rate = FED.rate * 0.75 - 0.05 * n
    FED.total = FED.total + 1.5 * FED.np_rate
    FED.np_rate = FED.np_rate * np.float64(0.9)
    FED.step += 1 + n
    FED.low -= 3
'''

_USES = [
    "acc = acc * (0.0 if math.isnan(FED.rate) else FED.rate)",
    "acc = acc + float(math.isfinite(FED.rate)) + float(math.isinf(FED.rate))",
    "acc = acc + math.floor(FED.rate * 10.0) * 0.1",
    "acc = acc + math.ceil(FED.rate) - math.trunc(FED.rate)",
    "acc = acc * math.copysign(1.0, FED.rate)",
    "acc = acc + math.fmod(FED.rate, 0.25)",
    "acc = acc + divmod(FED.rate, 0.2)[1]",
    "k = k + divmod(FED.step, 5)[1]",
    "acc = acc * FED.np_rate + FED.total * 0.01",
    "s.hist.append(FED.total)",
    "acc = acc * (FED.step % 7)",
    "acc = acc + (FED.step // 3 - FED.step // 3) + float(FED.step > 2 ** 33 + 4)",
    "acc = acc + tf.cast(tf.constant(FED.step) - 2 ** 33, acc.dtype) * 0.01",
    "acc = acc + (FED.low % 11) * 0.1",
    "if FED.np_rate > 0.3:\n    acc = acc + 1.0",
    "s.hist.append((FED.step % 5, FED.low // 7))",
    "acc = acc + math.floor(float(k) / (n + 1.0))",
    "acc = acc + math.fmod(float(n), FED.rate)",
]


@rule(0.6, max_depth=1)
def fed_number_functions(g):
    """(F358-F360) A float, an np.float64 or a wide int every call changes, used by `math`
    tests and roundings, numpy arithmetic or int arithmetic (before or after the change)."""
    _helper(g, _FED)
    use = g.choice(_USES).split("\n")
    change = ["fed_tick(n)"]
    return change + use if g.chance(0.5) else use + change
