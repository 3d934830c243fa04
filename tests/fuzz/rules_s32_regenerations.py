"""Generator rules (session 32) for tensor-valued tests janus keeps a graph per outcome of
(their branch prints or appends to a list: the general graph fails), whose outcome the
calls flip (F353): each flip fails a graph's in-graph guard, and a graph is traced for
the new outcome. A graph traced again that failed the same guard on its first call as
the graph it replaced is not traced again (the site is given up to Python): the calls
that flip, once, twice or on every call, stay plain Python's in results, printed text
and the heap, and the generations stay bounded.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_TESTS = ["tf.reduce_sum(x) > 0.0", "tf.reduce_mean(x) > 0.25", "tf.reduce_max(x) > 0.5",
          "tf.reduce_sum(x) + float(n % 2) > 0.5", "tf.reduce_min(acc) < -0.25"]
_KEPT = [  # (a branch a generalized graph refuses: a graph per outcome)
    ["print('flipped', {i})"],
    ["s.hist.append({i})"],
    ["print('flipped', {i})", "acc = acc + 1.0"],
    ["s.d['f'] = s.d.get('f', 0) + 1"],
]


@rule(0.3, max_depth=2)
def kept_outcome_flips(g):
    """(F353) A tensor-valued test whose branch a general graph refuses, its outcome
    flipping from call to call (the call's `x`, `n`), maybe in a loop."""
    test = g.choice(_TESTS)
    if g.chance(0.4):
        i = g.fresh("r")
        body = [line.format(i=i) for line in g.choice(_KEPT)]
        return [f"for {i} in range(n % 3 + 1):", f"    if {test}:"] + \
            ["        " + line for line in body] + ["    acc = acc * 0.75"]
    body = [line.format(i="k") for line in g.choice(_KEPT)]
    lines = [f"if {test}:"] + ["    " + line for line in body]
    if g.chance(0.5):
        lines += ["else:", "    acc = acc - 0.5"]
    return lines
