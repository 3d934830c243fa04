"""Generator rules (session 28, after v73) from the split-churn probes (F242): a function
split at a host draw whose segment after it specializes on what changes every call: the
drawn int indexing a Python table (`a = TABLE[t]`), a dict of per-`t` logs growing new
keys in the state the segment reads, and the log written after it (`float(...)`, another
break). janus bounds the graphs such segments make and do not reuse
(janus/fallback/churn.py); results, prints and the heap must stay plain Python's.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_TABLE = '''\
CHURN_TABLE = [0.99 ** (i + 1) for i in range(6)]
CHURN_RS = np.random.RandomState(28)
'''

_USES = [
    "acc = acc * {a} + tf.reduce_sum(tf.tanh(acc * {a})) * 0.1",
    "acc = tf.math.sqrt(tf.abs(acc) * {a} + 1.0) - {a} * tf.reduce_mean(acc)",
    "acc = acc + tf.cast({t}, acc.dtype) * 0.01 * {a}",
    "acc = acc * (1.0 - {a}) + s.h * {a}",
]
_LOGS = [
    "s.d.setdefault({t}, []).append(float(tf.reduce_sum(acc)))",
    "s.d[{t}] = s.d.get({t}, 0) + 1",
    "s.hist.append(({t}, round(float(tf.reduce_mean(acc)), 4)))",
    "s.total = s.total + {a}",
]


@rule(0.6, max_depth=1, eager=True)
def split_churn(g):
    """(F242) A host-drawn int indexing a Python table scales the tensor work after the
    draw (a segment of a split function), with a per-`t` log in the state after it."""
    _helper(g, _TABLE)
    t, a = g.fresh("t"), g.fresh("a")
    lines = [f"{t} = int(CHURN_RS.randint(0, 6))", f"{a} = CHURN_TABLE[{t}]"]
    uses = [g.choice(_USES) for _ in range(g.rng.randint(1, 2))]
    lines += [u.format(t=t, a=a) for u in uses]
    lines.append(g.choice(_LOGS).format(t=t, a=a))
    if g.chance(0.3):
        lines.append(f"out.append({t})")
    return lines
