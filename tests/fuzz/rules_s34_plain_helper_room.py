"""Generator rules (session 34) for a helper janus runs plainly from converted code (F368):
`plevels` catches its own RecursionError and counts how deep it got (~1000 levels: what
plain Python has left at its call), so any frame janus adds or room it gives shows in
the count. It is called from `f` itself, a converted callee a level down, the bottom of
a converted recursion a few hundred levels deep, a lambda run as it is, a loop's body
and an `if` expression; janus runs `f` profiled, split at the helper (its `try`), and its
segments as graphs. Before F368's fix the count was ~4x plain's on a profiled call
(converted code's room) and a trace of the recursion under the fuzzer's stack met a
RecursionError inside janus's tracer (quick v83 seeds 81, 145).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HELPERS = '''\
def plevels(n=0):
    """How many levels plain Python has left here (a try: janus runs it plainly)."""
    try:
        return plevels(n + 1)
    except RecursionError:
        return n


def pscaled(a):
    """Converted: the helper a level down."""
    return a * 0.5 + float(plevels() % 4)


class PLink:
    """A link of a chain (`nxt`: the next link or None)."""
    def __init__(self, x, nxt=None):
        self.x = x
        self.nxt = nxt


def _plinks():
    heads = []
    for length in (120, 260, 340):
        head = None
        for i in range(length):
            head = PLink(float(i % 5), head)
        heads.append(head)

    def plinks(i):
        """A chain (in a closure: the fuzzer's heap snapshot, itself recursive, walks the
        module's data globals)."""
        return heads[i]
    return plinks


plinks = _plinks()


def pdown(node):
    """Converted, one level a link; the helper at the bottom."""
    if node is None:
        return float(plevels() % 5)
    return node.x * 0.01 + 0.5 * pdown(node.nxt)


def psum(node):
    """Converted, one level a link (no helper): a trace inlines it."""
    if node is None:
        return 0.0
    return node.x * 0.01 + 0.5 * psum(node.nxt)
'''

_USES = [
    ["s.hist.append(plevels())"],
    ["k = k + plevels() % 5"],
    ["acc = acc + float(plevels() % 3)"],
    ["acc = pscaled(acc)"],
    ["acc = acc + tf.cast(pdown(plinks({i})), acc.dtype)"],
    ["k = k + (lambda: plevels() % 3)()"],
    ["for pi in range(n % 2 + 1):", "    k = k + plevels() % (pi + 2)"],
    ["acc = acc + float(plevels() % 2 if flag else 1)"],
    ["acc = acc + tf.cast(psum(plinks({i})), acc.dtype)", "s.hist.append(plevels() % 7)"],
]
_INDEXES = ["n % 3", "k % 3", "0", "2"]


@rule(0.3, max_depth=1)
def plain_helper_room(g):
    """(F368) A helper janus runs plainly, counting the recursion levels left at its call,
    from converted code (f, a callee, a converted recursion's bottom, a lambda, a loop)."""
    _helper(g, _HELPERS)
    index = g.choice(_INDEXES)
    return [line.format(i=index) for line in g.choice(_USES)]
