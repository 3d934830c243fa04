"""Generator rules (session 35) for the frame a warning names (F406): a
`warnings.warn(..., stacklevel=N)` in the jitted function or in a helper it calls, whose
`stacklevel` reaches the function's caller or the function itself, recorded under
`catch_warnings(record=True)` (the file and line each warning names feed the result).
janus ran such calls plainly (after a failed generation, a split run) from under its
own frames: the warning named janus's file (recursion/limits.py) instead of the caller.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HELPERS = '''\
import os as w_os
import warnings


def w_named(caught):
    """A number of the files and lines the recorded warnings name (janus's own notes
    left out: F418)."""
    return sum(len(w_os.path.basename(w.filename)) + w.lineno for w in caught
               if w.category.__name__ != "JanusWarning") % 97


def w_from_helper(level):
    warnings.warn("from a helper", UserWarning, stacklevel=level)
'''

_WARNS = [
    'warnings.warn("step", DeprecationWarning, stacklevel=2)',
    'warnings.warn("step", UserWarning, stacklevel=1)',
    "w_from_helper(3)",
    "w_from_helper(2)",
]


@rule(0.5, max_depth=1)
def warning_names_a_frame(g):
    """(F406) A warning whose `stacklevel` names the function's caller (or the function),
    recorded; the frame it names feeds the result."""
    _helper(g, _HELPERS)
    warn = g.choice(_WARNS)
    body = ["with warnings.catch_warnings(record=True) as w_caught:",
            "    warnings.simplefilter('always')",
            f"    {warn}"]
    if g.rng.random() < 0.4:  # (on some calls only: a tensor test or a Python one)
        test = g.choice(["tf.reduce_sum(acc) > 2.0", "n % 2 == 0", g.pcond()])
        body = [f"if {test}:"] + ["    " + line for line in body] + \
               ["else:", "    w_caught = []"]
    return body + ["acc = acc + tf.cast(w_named(w_caught), acc.dtype)"]
