"""Generator rules (session 34, f4) from F388/F389: heap lists of Python numbers (floats,
ints, mixed, pairs; in a global dict) rewritten or written into between calls, used whole
(`tf.constant`, `tf.convert_to_tensor`, `np.array`, `sum`) and item by item (a small loop,
an index, unpacking). Lists longer than `number_lists.STACK_MIN` whose items differ are
fed whole as one tensor; a use only a Python list serves reads them item by item again.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_NUMS = '''\
NUMS = {"f": [0.1 * i for i in range(24)], "i": [i % 7 - 3 for i in range(20)],
        "m": [i if i % 3 else 0.5 * i for i in range(18)],
        "p": [(0.5 * i, 1.0 - i) for i in range(17)], "s": [0.25, 0.5, 0.75]}
'''

_WRITES = [
    'NUMS["f"] = [0.1 * ((s.count + i) % 7) for i in range(24)]',
    'NUMS["f"] = [0.5 * i - s.count for i in range(20 + s.count % 3)]',
    'NUMS["i"] = [(s.count * i) % 11 - 5 for i in range(20)]',
    'NUMS["m"] = [i if i % 3 else 0.5 * s.count for i in range(18)]',
    'NUMS["p"] = [(0.5 * i, float(s.count % 3)) for i in range(17)]',
    'NUMS["s"] = [0.25 * s.count, 0.5, 0.75 + n]',
    'NUMS["f"][s.count % 20] = 0.25 * n',
    'NUMS["i"][n % 20] = s.count % 9',
    'NUMS["f"].append(0.125 * s.count)',
]
_WHOLE = [
    'acc = acc + tf.cast(tf.reduce_sum(tf.constant(NUMS["f"])), acc.dtype)',
    'acc = acc + tf.cast(tf.reduce_max(tf.convert_to_tensor(NUMS["i"])), acc.dtype)',
    'acc = acc + tf.cast(tf.reduce_sum(tf.constant(NUMS["m"])), acc.dtype) * 0.01',
    'acc = acc + tf.cast(tf.reduce_sum(tf.constant(NUMS["p"], tf.float64)), acc.dtype)',
    'acc = acc + tf.cast(np.array(NUMS["f"]).sum(), acc.dtype)',
    's.total = s.total + sum(NUMS["f"])',
    'k = k + sum(NUMS["i"]) % 5',
    'acc = acc + tf.cast(tf.reduce_sum(tf.constant(NUMS["s"])), acc.dtype)',
    'out.append(len(NUMS["f"]))',
]
_ITEMS = [
    'for v in NUMS["f"]:\n    acc = acc + v * 0.01',
    'for v in NUMS["i"]:\n    k = k + v',
    'for a, b in NUMS["p"]:\n    acc = acc + a * b * 0.001',
    'k = k + NUMS["i"][n % 20]',
    's.total = s.total + NUMS["f"][3] * 2.0',
    'first, *rest = NUMS["f"]\nacc = acc + first * len(rest)',
    's.total = s.total + max(NUMS["f"])',
]


@rule(0.6, max_depth=0)
def heap_number_list_use(g):
    """(F388/F389) A heap list of numbers rewritten (or written into) some calls, then
    used whole or item by item."""
    _helper(g, _NUMS)
    lines = ["s.count += 1"]
    if g.rng.random() < 0.7:
        write = g.choice(_WRITES)
        if g.rng.random() < 0.4:
            lines += [f"if s.count % {g.choice([2, 3])} == 0:", "    " + write]
        else:
            lines.append(write)
    use = g.choice(_WHOLE * 2 + _ITEMS)
    lines += use.split("\n")
    return lines
