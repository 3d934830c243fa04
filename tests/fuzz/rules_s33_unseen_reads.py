"""Generator rules (session 33, f1) from F367: a history list a rarely taken branch
appends to, held in a dict with a list every call appends to, and read by its contents
in ways that may not reach the tracer's `read()` (Python's list `==` / `!=` against an
argument's list or another list, `in`, `list(...)`, `sorted`, `min`/`max`, slicing,
`tuple(...)`). A read the tracer does not see makes the list look untouched: when it
grows, janus's ladder takes F356's untouched rung (its length fed) and that plan's
generation fails; the function must still match plain Python and keep its graphs (the
plan without that rung follows), not run eagerly for good.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HISTORIES = '''\
UNSEEN_HIST = {"every": [], "rare": []}
'''

_EVERY = ["s.count % 3 == 0", "s.count % 4 == 1", "s.count % 2 == 0 and n > 0",
          "flag and s.count % 3 == 2"]
_APPENDS = ['UNSEEN_HIST["rare"].append(n % 3)',
            'UNSEEN_HIST["rare"].append(s.count % 4)',
            'UNSEEN_HIST["rare"].append(k % 2 + 1)']
_READS = [
    'k = k + int(UNSEEN_HIST["rare"] == [n % 3] * (s.count // 3))',
    'k = k + int(UNSEEN_HIST["rare"] != UNSEEN_HIST["every"][-2:])',
    'k = k + int(2 in UNSEEN_HIST["rare"])',
    'k = k + len(list(UNSEEN_HIST["rare"]))',
    'k = k + (max(UNSEEN_HIST["rare"]) if UNSEEN_HIST["rare"] else 0)',
    'k = k + sum(sorted(UNSEEN_HIST["rare"])[-2:])',
    'k = k + int(tuple(UNSEEN_HIST["rare"][:2]) == (1, 1))',
    'out.append(UNSEEN_HIST["rare"] == UNSEEN_HIST["every"][:1])',
    'acc = acc + tf.cast(sum(UNSEEN_HIST["rare"][-3:]), acc.dtype)',
]


@rule(0.4, max_depth=0)
def unseen_read_history(g):
    """(F367) Every call appends to one history of a dict; a rarely taken branch appends
    to another; the other is read by its contents (before or after the branch) in a way
    the tracer may not see."""
    _helper(g, _HISTORIES)
    read = g.choice(_READS)
    lines = ["s.count += 1",
             'UNSEEN_HIST["every"].append(s.count % 3)',
             f"if {g.choice(_EVERY)}:",
             "    " + g.choice(_APPENDS)]
    return [read] + lines if g.rng.random() < 0.3 else lines + [read]
