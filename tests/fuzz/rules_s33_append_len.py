"""Generator rules (session 33, h2) from F381: a history list every call appends to
(`s.hist.append(loss)`), read only in a rarely taken branch (every k-th call: a record of
`len(s.hist)`, its last item, a scan of it). The other outcome's graph takes the list as
only appended to (janus's AppendOnlyList stand-in, its length not assumed); the rare
outcome's trace reads it: `len()` must be answered with the length fed (one graph as the
list grows), other reads must be janus's limit (the list copied again), never Python's
TypeError about janus's stand-in taken for the program's own error.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HISTORY = '''\
APPEND_LEN_HIST = []
APPEND_LEN_REC = {"n": 0}
'''

_RARE = ["s.count % 5 == 0", "s.count % 4 == 3", "s.count % 3 == 0 and n > 0",
         "flag and s.count % 4 == 1"]
_TENSOR_VALUES = ["tf.reduce_sum(acc)", "tf.reduce_mean(acc) * 0.5"]
_INT_VALUES = ["s.count % 5", "n % 3", "k % 4"]
_ANY_READS = [
    'APPEND_LEN_REC["n"] = len({h})',
    "k = k + len({h})",
    "acc = acc + tf.cast(len({h}), acc.dtype) * 0.01",
    "out.append(len({h}))",
    "s.total = s.total * 0.9 + len({h})",
    "k = k + (1 if {h} else 0)",
    "k = k + len([v for v in {h}]) % 3",
]
_TENSOR_READS = ["acc = acc + {h}[-1] * 0.1",
                 "acc = acc + tf.add_n({h}[-2:]) * 0.01"]
_INT_READS = ["k = k + {h}[-1]", "k = k + int(2 in {h})", "k = k + sum({h}) % 7",
              "k = k + max({h})"]


@rule(0.5, max_depth=0)
def rare_read_of_an_appended_history(g):
    """(F381) Every call appends to a history (a global list or `s.hist`); a rarely taken
    branch reads it (`len()` mostly), maybe with another heap write beside."""
    _helper(g, _HISTORY)
    hist = g.choice(["APPEND_LEN_HIST", "APPEND_LEN_HIST", "s.hist"])
    tensors = hist == "s.hist" or g.rng.random() < 0.6
    value = g.choice(_TENSOR_VALUES if tensors else _INT_VALUES)
    reads = _ANY_READS * 3 + (_TENSOR_READS if tensors else _INT_READS)
    read = g.choice(reads).format(h=hist)
    lines = ["s.count += 1",
             f"{hist}.append({value})",
             f"if {g.choice(_RARE)}:",
             "    " + read]
    if g.rng.random() < 0.3:
        lines.append("    s.total = s.total * 0.5")
    return lines
