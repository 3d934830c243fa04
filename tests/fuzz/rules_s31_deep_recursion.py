"""Generator rules (session 31) for a user's recursion a few hundred levels deep (F349):
a helper recursing over a 300-480 long chain of objects (a Python float or a tensor
result, plain Python's limit is 1000), called by `f`, before or after an effect. Janus's
converted code takes ~3 frames a level (recursion/limits.py gives it room): the
profiled call met a RecursionError inside janus, which reached the user as janus's
internal error (or, after an effect, as JanusInternalError).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CHAIN = '''\
class RNode:
    """A link of a long chain (a linked list: `nxt` is the next link or None)."""
    def __init__(self, x, nxt=None):
        self.x = x
        self.nxt = nxt


def rchain(length):
    head = None
    for i in range(length):
        head = RNode(float(i % 7), head)
    return head


def _chains():
    held = [rchain(300), rchain(420), rchain(480)]

    def rchains(i):
        """A chain (held in a closure: the fuzzer's heap snapshot, recursive itself,
        walks the module's data globals)."""
        return held[i]
    return rchains


rchains = _chains()


def rsum(node):
    """A Python float, one recursion level per link."""
    if node is None:
        return 0.0
    return node.x * 0.01 + 0.5 * rsum(node.nxt)


def renc(node):
    """A tensor, one recursion level per link."""
    if node is None:
        return tf.constant(0.0)
    return tf.tanh(0.5 * renc(node.nxt) + node.x * 0.01)
'''

_USES = [
    "acc = acc + tf.cast(rsum(rchains({i})), acc.dtype)",
    "acc = acc + tf.cast(renc(rchains({i})), acc.dtype) * 0.5",
    "k = k + int(rsum(rchains({i})) > 0.05)",
]
_INDEXES = ["n % 3", "k % 3", "1", "2"]


@rule(0.3, max_depth=2)
def deep_recursion(g):
    """(F349) A helper recursing 300-480 levels deep, called with or without an effect
    (a heap write) before it."""
    _helper(g, _CHAIN)
    use = g.choice(_USES).format(i=g.choice(_INDEXES))
    return g.choice([[use], ["s.count += 1", use], [use, "s.hist.append(k)"]])
