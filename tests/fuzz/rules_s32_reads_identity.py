"""Generator rules (session 32, f3) for two reads janus's hooks did not see:

(F354) library code taking its eager path inside a traced call reads a tensor's value on
the host: `StringLookup.vocabulary_size()` is `int(table.size().numpy()) + 1` eagerly. The
table's size is now read while tracing and checked in the graph; the rule changes the
vocabulary under a Python test (`set_vocabulary`), so a later call finds another size.

(F355) the identity of the program's objects observed where no hook sees it: `a == b` of
objects without `__eq__`, `x in [a, b]`, `xs.index(a)`, `xs.count(a)`, a set's size, a
dict's membership. The slot list's second object is the first one on some calls (by the
call's `n` or `flag`, or under a Python test), a new object on others.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_VOCABULARY = '''\
import keras

VLOOK = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
VWORDS = [["a", "b", "c"], ["a", "b", "c", "d", "e"]]
'''

_SIZES = [
    "k = k + VLOOK.vocabulary_size()",
    "acc = acc + float(VLOOK.vocabulary_size()) * 0.01",
    "out.append(VLOOK.vocabulary_size() * 2)",
    "print('vocab', VLOOK.vocabulary_size())",
    "acc = acc + tf.cast(tf.reduce_sum(tf.one_hot(VLOOK(tf.constant(['a', 'e'])), "
    "VLOOK.vocabulary_size())), acc.dtype) * 0.1",
]


@rule(0.4, max_depth=2)
def library_host_read(g):
    """(F354) `vocabulary_size()` (the table's size read on the host by Keras's eager
    path), with the vocabulary set anew under a Python test before or after."""
    _helper(g, _VOCABULARY)
    use = g.choice(_SIZES)
    move = [f"if {g.pcond()}:", "    VLOOK.set_vocabulary(VWORDS[n % 2])"]
    return g.choice([[use], move + [use], [use] + move])


_SLOTS = '''\
class HNode:
    """An object of the program's (no __eq__/__hash__ of its own)."""
    def __init__(self, v):
        self.v = v


HA, HB, HC = HNode(1.0), HNode(2.0), HNode(3.0)
HSLOTS = [HA, HB, HC]
'''

_IDENTITY_USES = [
    ["if HSLOTS[0] == HSLOTS[1]:", "    acc = acc * 1.5"],
    ["if HSLOTS[0] != HSLOTS[1]:", "    k += 1"],
    ["if HSLOTS[1] in [HSLOTS[0], HC]:", "    acc = acc + 0.25"],
    ["if HSLOTS[1] in (HC, HSLOTS[0]):", "    k += 2"],
    ["k += [HC, HSLOTS[0], HSLOTS[1]].index(HSLOTS[1])"],
    ["k += [HSLOTS[0], HSLOTS[1], HC].count(HSLOTS[0])"],
    ["acc = acc + float(len({HSLOTS[0], HSLOTS[1], HC})) * 0.1"],
    ["hd = {HSLOTS[0]: 1.0}", "if HSLOTS[1] in hd:", "    acc = acc * 0.5"],
    ["hv = []", "for h in [HSLOTS[0], HC, HSLOTS[1]]:", "    if h not in hv:",
     "        hv.append(h)", "k += len(hv)"],
]


@rule(0.4, max_depth=2)
def identity_past_hooks(g):
    """(F355) two slots that are one object on some calls, compared by identity where no
    hook sees it; the second slot set to the first or to a new object before (under a
    Python test) or after the use."""
    _helper(g, _SLOTS)
    use = g.choice(_IDENTITY_USES)
    move = g.choice(["HSLOTS[1] = HSLOTS[0]", "HSLOTS[1] = HNode(2.0)",
                     "HSLOTS[1] = HSLOTS[0] if n % 2 else HNode(2.0)",
                     "HSLOTS[1] = HSLOTS[0] if flag else HNode(2.0)"])
    r = g.rng.random()  # (a call that runs plainly moves it for the graphs of the next)
    if r < 0.4:
        return [f"if {g.pcond()}:", f"    {move}"] + use
    return use + [move] if r < 0.8 else use
