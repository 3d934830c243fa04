"""Generator rules (session 30) from session 30's probes of library objects changed
while janus traces (F313-F315): a step calls a method of a library object that keeps
its own Python state — `keras.utils.Progbar.update` / `.add` (running sums in a dict,
a counter `_seen_so_far`), held by a module global or by an `argparse.Namespace` — with
a tensor the step computed or with plain numbers; the same call or a later one reads the
counter back. Plain Python changes that state on every call; a trace must neither leave
its tensors there nor count once where a graph never counts again
(graphgen/leftover_tensors.py refuses such a trace and puts back what it changed).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_BAR = '''\
import argparse

import keras

PBAR = keras.utils.Progbar(1000, verbose=0)
PARGS = argparse.Namespace(pb=keras.utils.Progbar(1000, verbose=0), lr=0.1)


def pseen():
    """How far the progress bars counted, as one number."""
    return PBAR._seen_so_far + 1000 * PARGS.pb._seen_so_far
'''

_CHANGES = [
    "PBAR.add(1)",
    "PBAR.update(n + 1, values=[('loss', tf.reduce_sum(acc))])",
    "PBAR.update(PBAR._seen_so_far + 1, values=[('loss', tf.reduce_mean(acc))])",
    "PARGS.pb.add(2)",
    "PARGS.pb.update(n + 2, values=[('m', tf.reduce_sum(acc) * PARGS.lr)])",
    "PBAR.add(1, values=[('x', tf.reduce_max(x))])",
]
_USES = [
    "k = k + pseen()",
    "acc = acc + tf.cast(pseen(), acc.dtype) * 0.001",
    "out.append(pseen())",
]


@rule(0.5, max_depth=2)
def library_object_counts(g):
    """(F313-F315) A Progbar (a global, or in a Namespace) updated by a call, with the
    step's tensor or plain numbers (under a test: some calls), its count read back."""
    _helper(g, _BAR)
    change, use = g.choice(_CHANGES), g.choice(_USES)
    return g.choice([
        [change, use],
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, change],
        [change],
    ])
