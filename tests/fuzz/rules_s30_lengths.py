"""Generator rules (session 30, after v75) for heap lists whose length alone a call
reads while it grows them (plan.fed_lengths: the length fed, one graph as the list grows;
before, one graph per length until janus stopped generating), and the uses of such a
length that must keep it guarded or refuse the plan: a count, an index, a pop.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_GROW = ["s.hist.append(n)", "s.hist.append(len(s.hist))", "s.hist.extend([k, k])",
         "s.hist += [1]", "s.hist.append(0.5 * k)"]
_USE = [
    "acc = acc + float(len(s.hist)) * 0.5",
    "acc = acc * (1.0 + 0.01 * len(s.hist))",
    "s.total = 0.05 * len(s.hist) + 0.95 * s.total",
    "acc = acc + tf.cast(len(s.hist), acc.dtype)",
    "if len(s.hist) % 3 == 0:\n    acc = acc + 1.0",
    "for _ in range(len(s.hist) % 3):\n    acc = acc + 0.5",
    "if len(s.hist) > 4:\n    s.hist.pop(0)",
    "acc = acc + float(s.hist[-1]) if s.hist else acc",
    "s.count = len(s.hist)",
]


@rule(0.6, max_depth=2)
def grown_list_length(g):
    """A heap list grown on every call (or every call of a flag) whose length is read:
    in arithmetic, written to the heap, tested, counted, bounded by a pop."""
    lines = []
    grow = g.choice(_GROW)
    if g.choice([True, False]):
        lines += [f"if {g.pcond()}:", f"    {grow}"]
    else:
        lines.append(grow)
    for use in (g.choice(_USE), g.choice(_USE)):
        lines += use.split("\n")
    return lines
