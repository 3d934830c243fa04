"""Generator rules (session 31) from session 31's round on library state a trace changes
(F330, F331): a step hands a library object's bound method to library code (`tf.nest`)
that adds an item on every call — a log keyed by its length, `self.history[len(...)] =
v` — or fills a cache once (the same key each time), or calls a Keras layer's method
that replaces its state on every call (`StringLookup.set_vocabulary`); the same call or
a later one reads the count back. Plain Python adds one per call: a trace must not add
once where a graph never adds again (graphgen/leftover_tensors.py: a second look), and
a cache must keep its graphs.

The library is a module the program writes under a `site-packages` directory (janus
takes it for a library's code, runtime.user_file). Registered in `rules.RULES` on
import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_LIBRARY = '''\
import argparse
import os
import sys
import tempfile

import keras

_SLIB = os.path.join(tempfile.gettempdir(), "janus_fuzz_s31", "site-packages")
_SSRC = """
class StepLog:
    def __init__(self):
        self.history = {}
        self.cache = {}

    def log(self, value):
        self.history[len(self.history)] = value

    def remember(self, value):
        self.cache.setdefault("first", value)
"""
if not os.path.exists(os.path.join(_SLIB, "fuzz_steplog.py")):
    os.makedirs(_SLIB, exist_ok=True)
    _stmp = os.path.join(_SLIB, "fuzz_steplog.%d.tmp" % os.getpid())
    with open(_stmp, "w") as _sfile:
        _sfile.write(_SSRC)
    os.replace(_stmp, os.path.join(_SLIB, "fuzz_steplog.py"))
if _SLIB not in sys.path:
    sys.path.append(_SLIB)
import fuzz_steplog  # noqa: E402

SLOG = fuzz_steplog.StepLog()
SARGS = argparse.Namespace(log=fuzz_steplog.StepLog(), lr=0.1)
SLOOK = keras.layers.StringLookup(vocabulary=["a", "b"])


def slen():
    """How many items the step logs hold, as one number."""
    return len(SLOG.history) + 100 * len(SARGS.log.history) + 1000 * len(SLOG.cache)
'''

_CHANGES = [
    "tf.nest.map_structure(SLOG.log, 1.0)",
    "tf.nest.map_structure(SARGS.log.log, float(n))",
    "tf.nest.map_structure(SLOG.remember, 2.0)",
    "tf.nest.map_structure(SARGS.log.remember, SARGS.lr)",
    "SLOOK.set_vocabulary(['a', 'b', 'c'])",
]
_USES = [
    "k = k + slen()",
    "acc = acc + tf.cast(slen(), acc.dtype) * 0.001",
    "out.append(slen())",
    "acc = acc + tf.cast(SLOOK.vocabulary_size(), acc.dtype) * 0.01",
]


@rule(0.4, max_depth=2)
def library_state_log(g):
    """(F330, F331) A library's log added to on every call (or a cache filled once, a
    lookup table replaced) by library code the trace runs as it is; read back."""
    _helper(g, _LIBRARY)
    change, use = g.choice(_CHANGES), g.choice(_USES)
    return g.choice([
        [change, use],
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, change],
        [change],
    ])
