"""Generator rules (session 35) for the Python truth and numbers of tf.Variables (F403):
`if VT_ON:`, `not VT_COUNT`, `VT_ON or <tensor test>`, `x if VT_ON else y`, `bool(VT_ON)`,
`int(VT_COUNT)`, `float(VT_COUNT)` of a bool flag and an int64 step counter (both
trainable=False) that the calls update, before the read or after it. Eagerly each reads
the variable; janus ran such functions plainly for good before.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_VARIABLES = '''\
VT_ON = tf.Variable(False, trainable=False)
VT_COUNT = tf.Variable(0, dtype=tf.int64, trainable=False)
'''

_UPDATES = [
    "VT_COUNT.assign_add(1)",
    "VT_ON.assign(tf.reduce_sum(acc) > 1.0)",
    "VT_ON.assign(tf.logical_not(VT_ON))",
    "VT_COUNT.assign(VT_COUNT % 3)",
]
_READS = [
    ["if VT_ON:", "    acc = acc * 0.5"],
    ["if not VT_COUNT:", "    out.append('first')"],
    ["acc = acc + (1.0 if VT_ON else -1.0)"],
    ["out.append(bool(VT_ON))"],
    ["acc = acc + float(VT_COUNT) * 0.1"],
    ["if int(VT_COUNT) > 2:", "    acc = acc - 0.25"],
    ["if VT_ON or tf.reduce_max(acc) > 2.0:", "    acc = acc + 0.5"],
    ["acc = acc * (2.0 if VT_COUNT and not VT_ON else 1.0)"],
]


@rule(WEIGHT, max_depth=2)
def variable_truth(g):
    """(F403) A bool flag / int64 counter variable tested for truth or converted by
    `bool`/`int`/`float`, updated by the call before or after the read (or under a Python
    test)."""
    _helper(g, _VARIABLES)
    update = g.choice(_UPDATES)
    read = g.choice(_READS)
    return g.choice([
        [update] + read,
        read + [update],
        [f"if {g.pcond()}:", f"    {update}"] + read,
        read,
    ])
