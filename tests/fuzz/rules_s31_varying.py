"""Generator rules (session 31) for heap values every call changes, which janus feeds
from the first graph when the profiled calls saw them change (graphgen/varying_numbers.py:
F334-F335): a running average, a decayed rate, a step counter (attributes of a module
object, globals, dict items) and a history list appended to, each then used as data
(arithmetic with tensors: fed) or where the trace needs its Python value (a `range`
count, an index into a Python list, a dict key, a shape, formatted text, a test with an
effect in its branch, the list read): the fed trace fails there and janus traces again
with it guarded; results, printed text and the heap must stay plain Python's.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_STEPPER = '''\
class Stepper:
    """Bookkeeping every call changes: a running average, a rate, a counter, a history."""
    def __init__(self):
        self.avg = 0.0
        self.rate = 1.0
        self.step = 0
        self.lengths = []
        self.stats = {"seen": 0, "sum": 0.5}


STEPPER = Stepper()
G_STEP = 0
G_RATE = 0.5
NAMES = ["a", "b", "c", "d"]
TABLE = {0: 0.5, 1: -1.0, 2: 2.0}


def bump_globals():
    global G_STEP, G_RATE
    G_STEP += 1
    G_RATE = G_RATE * 0.75
'''

_CHANGES = [  # (each changes a value every call)
    "STEPPER.avg = 0.9 * STEPPER.avg + 0.1 * float(n)",
    "STEPPER.rate = max(0.01, STEPPER.rate * 0.5)",
    "STEPPER.step += 1",
    "STEPPER.stats['seen'] = STEPPER.stats['seen'] + 1",
    "STEPPER.stats['sum'] *= 1.5",
    "STEPPER.lengths.append(k + n)",
    "bump_globals()",
]

_DATA_USES = [  # (a graph feeds them)
    "acc = acc * STEPPER.rate + STEPPER.avg",
    "acc = acc + tf.cast(STEPPER.step, acc.dtype) * 0.01",
    "acc = acc + STEPPER.stats['sum'] * 0.1 - STEPPER.stats['seen']",
    "acc = acc * G_RATE + G_STEP",
    "s.total = s.total + STEPPER.rate * 2.0",
    "s.count = s.count + STEPPER.step",
]

_PYTHON_USES = [  # (the trace needs the Python value: guarded again)
    "for _ in range(STEPPER.step % 3):\n    acc = acc * 0.5",
    "s.hist.append(NAMES[STEPPER.step % 4])",
    "acc = acc + TABLE[G_STEP % 3]",
    "acc = acc + tf.reduce_sum(tf.ones([STEPPER.step % 3 + 1]))",
    "print(f'step {STEPPER.step} rate {STEPPER.rate:.4f}')",
    "if STEPPER.step % 3 == 0:\n    s.hist.append(STEPPER.step)",
    "if G_RATE > 0.2:\n    acc = acc + 1.0",
    "acc = acc + len(STEPPER.lengths)",
    "acc = acc + float(sum(STEPPER.lengths))",
    "k = k + (STEPPER.lengths[-1] if STEPPER.lengths else 0)",
]


def _lines(text: str) -> list[str]:
    return text.split("\n")


@rule(0.6, max_depth=1)
def varying_heap_number(g):
    """(F334-F335) A heap number or list every call changes, used as data or where the
    trace needs its Python value (before or after the change)."""
    _helper(g, _STEPPER)
    change = _lines(g.choice(_CHANGES))
    use = _lines(g.choice(_DATA_USES + _PYTHON_USES))
    return change + use if g.chance(0.5) else use + change
