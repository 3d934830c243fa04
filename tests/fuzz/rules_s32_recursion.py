"""Generator rules (session 32) for recursion over trees whatever trees the profiled calls
saw (F352): a recursive encoder (a function, a method, one with a scale passed on, one
passing each level its own depth, two roots with scales of their own) called by `f` on
a tree picked by the call's `n` and `len(xs)` from a pool of leaves, trees one level
deep and deeper ones, so the profiled calls (identical) see a leaf, a small tree or a
deep one and later calls other shapes. Janus learned the batched recursion only from a
tree two levels deep (else a graph per shape); a per-level argument or a second root's
own argument were given the first root's in the batched run.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_TREES = '''\
class TNode:
    """A binary tree node: a leaf holds a word id, an inner node two children."""
    def __init__(self, word=None, left=None, right=None):
        self.is_leaf = left is None
        self.word, self.left, self.right = word, left, right


def _tleaf(w):
    return TNode(w)


def _tin(a, b):
    return TNode(left=a, right=b)


def _tpool():
    held = [_tleaf(1), _tin(_tleaf(2), _tleaf(3)), _tleaf(4),
            _tin(_tleaf(0), _tin(_tleaf(1), _tleaf(2))),
            _tin(_tin(_tleaf(3), _tleaf(4)), _tin(_tleaf(0), _tleaf(2))),
            _tin(_tin(_tin(_tleaf(1), _tleaf(2)), _tleaf(3)), _tleaf(4)),
            _tin(_tleaf(4), _tleaf(0))]

    def ttree(i):
        """A tree of the pool (held in a closure: the fuzzer's heap snapshot walks the
        module's data globals)."""
        return held[i % len(held)]
    return ttree


ttree = _tpool()
TEMB = tf.reshape(tf.range(10, dtype=tf.float32) / 10.0 - 0.5, [5, 2])
TW = tf.constant([[0.5, -0.25], [0.125, 0.5], [-0.5, 0.25], [0.25, 0.125]])


def tenc(node):
    """A tensor per node, batched over every tree shape once learned."""
    if node.is_leaf:
        return tf.gather(TEMB, [node.word])
    return tf.tanh(tf.concat([tenc(node.left), tenc(node.right)], 1) @ TW)


def tenc_scaled(node, scale):
    """Passes its own `scale` on."""
    if node.is_leaf:
        return tf.gather(TEMB, [node.word]) * scale
    return tf.tanh(tf.concat([tenc_scaled(node.left, scale),
                              tenc_scaled(node.right, scale)], 1) @ TW)


def tenc_depth(node, depth):
    """Passes each level its own depth."""
    if node.is_leaf:
        return tf.gather(TEMB, [node.word]) * float(depth + 1)
    return tf.tanh(tf.concat([tenc_depth(node.left, depth + 1),
                              tenc_depth(node.right, depth + 1)], 1) @ TW)


class TEncoder:
    def __init__(self, w):
        self.w = w

    def encode(self, node):
        if node.is_leaf:
            return tf.gather(TEMB, [node.word])
        return tf.tanh(tf.concat([self.encode(node.left), self.encode(node.right)], 1)
                       @ self.w)


TENCODER = TEncoder(TW)
'''

_TREE = ["n + len(xs)", "n", "len(xs) + 1", "k + n"]
_USES = [
    "acc = acc + tf.cast(tf.reduce_sum(tenc(ttree({t}))), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tenc_scaled(ttree({t}), 0.5)), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tenc_depth(ttree({t}), 0)), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(TENCODER.encode(ttree({t}))), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(tenc_scaled(ttree({t}), 0.5)) + "
    "tf.reduce_sum(tenc_scaled(ttree({t} + 3), 2.0)), acc.dtype)",
    "out.append(tf.reduce_sum(tenc(ttree({t}))))",
]


@rule(0.3, max_depth=2)
def tree_recursion(g):
    """(F352) A recursive encoder over a tree the call's arguments pick: the profiled
    calls see a leaf, a small tree or a deep one, later calls other shapes."""
    _helper(g, _TREES)
    use = g.choice(_USES).format(t=g.choice(_TREE))
    return g.choice([[use], ["s.count += 1", use], [use, "s.hist.append(k)"]])
