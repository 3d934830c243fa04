"""Generator rules (session 33): a hand-written sparse update of a table, as a TreeLSTM
trainer's SGD writes it for its embedding:

    SC_TABLE.scatter_sub(tf.IndexedSlices(lr * rows, ids))

janus commits such an update as the scatter itself when nothing in the graph reads the
table after it (fallback/variables.py `Scattered`), else as the whole new table. The
programs vary what follows the scatter (nothing, a read of the table, a second scatter,
another variable's update), and on some calls give an index past the table's rows: plain
Python raises then, after updating what came before, and janus must leave the same
variables (a graph changes none of them; the plain rerun does what plain Python does).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_TABLE = '''\
SC_TABLE = tf.Variable(np.arange(18, dtype=np.float32).reshape(6, 3) / 10.0)
SC_BIAS = tf.Variable(np.zeros(3, np.float32))
'''

_IDS = ["tf.constant([1, 3, 3])", "tf.constant([n % 6, 0])", "tf.constant([n % 7])",
        "tf.range(2) + n % 5", "tf.constant([s.count % 6, 5, s.count % 6])"]
_METHODS = ["scatter_sub", "scatter_add"]
_AFTER = [[],
          ["acc = acc + tf.cast(tf.reduce_sum(SC_TABLE), acc.dtype) * 0.01"],
          ["SC_TABLE.scatter_add(tf.IndexedSlices(tf.ones([1, 3]) * 0.5, tf.constant([2])))"],
          ["SC_BIAS.assign_add(tf.reduce_mean({rows}, axis=0))"],
          ["acc = acc + tf.cast(tf.reduce_sum(tf.gather(SC_TABLE, {ids})), acc.dtype) * 0.01"]]
_BEFORE = [[], ["SC_BIAS.assign_sub(tf.ones([3]) * 0.1)"]]


@rule(0.4, max_depth=1)
def scatter_commit(g):
    """(v80) `scatter_sub`/`scatter_add` of an IndexedSlices on a table, with what may
    follow it (see the module docstring)."""
    _helper(g, _TABLE)
    ids, rows = g.fresh("scids"), g.fresh("scrows")
    method = g.choice(_METHODS)
    lines = list(g.choice(_BEFORE))
    lines += [f"{ids} = {g.choice(_IDS)}",
              f"{rows} = tf.ones([tf.size({ids}), 3]) * "
              "tf.cast(tf.reduce_mean(x), tf.float32) * 0.1",
              f"SC_TABLE.{method}(tf.IndexedSlices({rows}, {ids}))"]
    lines += [line.format(ids=ids, rows=rows) for line in g.choice(_AFTER)]
    return lines
