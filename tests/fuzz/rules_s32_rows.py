"""Generator rules (session 32, g3) from session 32's probes h2: a tensor's rows taken in
Python (F365: `a, b = t`, `list(t)`, `[*t]`, `first, *rest = t`, `zip(ws, t)`,
`enumerate(t)`, a comprehension or generator over `t`, `len(t)`), which janus now traces
where the first dimension is static (graphgen/tensor_rows.py), errors plain Python's
(too few or many values to unpack, a scalar's rows or len); and cheap steps doing Python
arithmetic on a fed number (F364: `max(v, nan)`, `min(nan, v)`, `int(-v)`, `round`),
whose graphs the plain trial measures (graphgen/plain_trial.py; `JANUS_FUZZ_PLAIN=1`
compares its transitions).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_ROWS = [  # (acc: a tensor of rank 1 or 2 mostly; a scalar raises TypeError as plain)
    "acc = acc + tf.stack(list(acc)) * 0.5",
    "acc = acc + tf.stack([*acc, *acc])[: len(acc)] * 0.25",
    "acc = acc - tf.stack(tuple(r * 0.5 for r in acc))",
    "acc = tf.stack([r * float(i + 1) for i, r in enumerate(acc)])",
    "acc = acc + sum(w * r for w, r in zip([1.0, 2.0, 3.0], acc)) * 0.1",
    "first, *rest = acc\nacc = acc + first * 0.5 + float(len(rest))",
    "k = k + len(acc)",
    "s.hist.append(len(list(acc)))",
    "out.append(tf.reduce_sum(tf.stack([tf.reduce_max(r) for r in acc])))",
    "for i, r in enumerate(acc):\n    k = k + i\n    out.append(r)",
    "if acc.shape.rank and acc.shape[0] >= 2:\n    a, b = acc[:2]\n    acc = acc + (a - b) * 0.5",
    "rows = [r for r in acc if True]\nk = k + len(rows)",
    "k = k + sum(1 for _ in zip(xs, acc))",
]
_RAISING_ROWS = [  # (ValueError in plain Python unless acc has exactly 2 rows)
    "a, b = acc\nacc = tf.stack([b, a])",
    "a, b = acc[:2]\nacc = acc + a * b",
]

_FED = [  # (a fed number's Python arithmetic: tiny graphs)
    "acc = acc + max(n * 0.5 - 1.0, float('nan'))",
    "acc = acc + min(float('nan'), n * 0.25) * 0.0 + 1.0",
    "k = k + int(-(n * 1.5 - 2.25)) + int(n * 0.75)",
    "k = k + round(n / 3) + math.trunc(-n * 0.75)",
    "s.total = s.total + max(n * 0.5, 1.0) - min(n * 0.25, 0.5)",
]


def _lines(text: str) -> list[str]:
    return text.split("\n")


@rule(0.6, max_depth=2)
def tensor_rows(g):
    """(F365) A tensor's rows taken in Python: unpacked, listed, zipped, enumerated,
    comprehended, its len; rarely an unpacking plain Python raises on."""
    if g.chance(0.15):
        return _lines(g.choice(_RAISING_ROWS))
    return _lines(g.choice(_ROWS))


@rule(0.4, max_depth=2)
def fed_number_arithmetic(g):
    """(F364) Python arithmetic on a number the call passes: max/min with nan, int
    truncation, round: a tiny graph the plain trial measures."""
    return _lines(g.choice(_FED))
