"""Generator rules (session 35) for numpy's float sums of at most 128 items whose items
the trace checks by range (janus/graphgen/float_sums.py `_short_sum`, `numpy_mean`
unchecked): a 1-D float32/float64 array whose length varies call by call across 0..140
(across numpy's 8-item rows and its 128-item block), with signed zeros (some or all
items -0.0), an inf or a nan among the items, reduced by `sum()`, `mean()`, `std()`
and normalized as an RL update normalizes its returns. Results kept as `repr` text in
`s.hist`, so they compare bit for bit.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_ARRAYS = [
    "tf.reshape(tf.tile(tf.cast(x, tf.float32), [n * 5 + 1]), [-1])[:(n * 37) % 131]",
    "tf.reshape(tf.tile(tf.cast(x, tf.float64), [n * 3 + 1]), [-1])[:(n * 11) % 141] * 0.25",
    "tf.concat([tf.zeros([n % 9], tf.float32) * -1.0, "
    "tf.reshape(tf.cast(x, tf.float32), [-1])], 0)",
    "tf.fill([(n * 3) % 17], tf.constant(-0.0, tf.float32))",
    "tf.fill([(n * 5) % 19], tf.constant(-0.0 if n % 2 else 0.0, tf.float64))",
    "tf.concat([tf.reshape(tf.cast(x, tf.float32), [-1]), "
    "tf.constant([float('inf')] * (n % 2), tf.float32)], 0)",
    "tf.concat([tf.constant([float('nan')] * (n % 3 == 1), tf.float64), "
    "tf.reshape(tf.cast(x, tf.float64), [-1]) * -3.0], 0)",
    "tf.round(tf.reshape(tf.tile(tf.cast(x, tf.float32), [n + 2]), [-1]) * 2.0)[:(n * 9) % 133]",
]
_REDUCE = ["{a}.sum()", "{a}.mean()", "{a}.std()", "np.sum({a})", "np.mean({a})",
           "{a}.sum() - {a}.mean()", "np.std({a}) + {a}.mean()"]


@rule(0.5, eager=True)
def short_float_sums(g):
    """A fed 1-D float array of at most ~140 items (signed zeros, an inf, a nan among
    them; its length varying by call) reduced as numpy does; reprs and types kept."""
    a, m = g.fresh("sa"), g.fresh("sm")
    lines = [f"{a} = ({g.choice(_ARRAYS)}).numpy()",
             f"{m} = {g.choice(_REDUCE).format(a=a)}",
             f"s.hist.append(repr({m}) + type({m}).__name__)"]
    if g.chance(0.5):
        z = g.fresh("sz")
        lines += [f"{z} = ({a} - {a}.mean()) / ({a}.std() + 1e-7)",
                  f"s.hist.append(repr({z}.tolist()))"]
    return lines
