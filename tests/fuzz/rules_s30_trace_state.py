"""Generator rules (session 30) from session 30's probes of the trace's tensors left in
long-lived Python state (F300): a library call the step makes writes an attribute of a
program object or a Keras layer the way janus cannot see (`functools.partial(setattr, ...)`
run by `tf.nest.map_structure`), with a tensor the step computed; the same call or a
later one reads it back. Plain Python keeps an EagerTensor there; a trace must not leave
its symbolic tensor behind (graphgen/leftover_tensors.py refuses that line).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_BOX = '''\
import functools

import keras


class TBox:
    """A program object a library call writes (`setattr` run by tf.nest)."""
    def __init__(self):
        self.last = tf.constant(0.0)
        self.pair = (tf.constant(0.0), 0)


TBOX = TBox()
TLAYER = keras.layers.Dense(1, kernel_initializer="ones", name="tlayer")
TLAYER(tf.zeros((1, 1)))
TLAYER.cached = tf.constant(0.0)


def tkept():
    """What the library calls kept, as one number."""
    return tf.cast(TBOX.last, tf.float32) + tf.cast(TBOX.pair[0], tf.float32) + \\
        0.1 * TBOX.pair[1] + tf.cast(TLAYER.cached, tf.float32)
'''

_SETS = [
    "tf.nest.map_structure(functools.partial(setattr, TBOX, 'last'), tf.reduce_sum(acc) * 0.5)",
    "tf.nest.map_structure(functools.partial(setattr, TBOX, 'last'), tf.reduce_mean(acc) + n)",
    "functools.partial(setattr, TBOX, 'pair')((tf.reduce_max(acc), k))",
    "tf.nest.map_structure(functools.partial(setattr, TLAYER, 'cached'), tf.reduce_sum(acc))",
]
_USES = [
    "acc = acc + tf.cast(tkept(), acc.dtype) * 0.01",
]


@rule(0.4, max_depth=2)
def library_kept_trace_tensor(g):
    """(F300) A library call stores a tensor of the step in an object's attribute (under
    a test: some calls), read back by the step and by the calls after."""
    _helper(g, _BOX)
    change, use = g.choice(_SETS), g.choice(_USES)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [change, use],
    ])
