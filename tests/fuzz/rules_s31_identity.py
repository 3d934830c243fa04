"""Generator rules (session 31, after v76) for the identity of the program's objects
(janus/graphgen/heap_identity.py, F347): `id(node)`, a default `hash(node)`, `node is
ILAST[0]`, `sorted(..., key=id)`, a memo keyed by `id(c)` or by the node, a set of nodes,
`kids[0] is kids[1]`, over module-level nodes and trees, one of whose trees has one child
object twice (a DAG). The heap moves between calls (the node list rotated, the trees
swapped, under a Python test), so one source holds another object on a later call: a
graph that kept the traced object's identity as a constant answered for it. Only
equalities of identities reach the results (the two sides' objects are not the same, nor
in the same order by id).

Also (F348) a heap list of ints whose length a call reads and which it hands to a TF op
(`tf.gather(IEMB, IWORDS)`): TF packed the list before janus noted the read, so the list
was taken for one read only through `len()` (its length fed), and that plan failed.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_NODES = '''\
class INode:
    """A node of the program's: a value and children (no __eq__/__hash__ of its own)."""
    def __init__(self, v, kids=()):
        self.v = v
        self.kids = list(kids)


ISHARED = INode(1.0)
INODES = [INode(1.0), INode(2.0), INode(3.0)]
ITREES = [INode(0.5, [ISHARED, ISHARED]), INode(0.5, [INode(1.0), INode(-3.0)])]
ILAST = [None]


def imemo(c, memo):
    """A subtree's value, each object once (a memo keyed by identity)."""
    if id(c) in memo:
        return 0.0
    memo[id(c)] = c.v
    return c.v + sum(imemo(d, memo) for d in c.kids)
'''

_NODE_MOVES = ["INODES.append(INODES.pop(0))", "INODES.reverse()", "ILAST[0] = INODES[n % 3]"]
_TREE_MOVES = ["ITREES.reverse()", "ITREES.append(ITREES.pop(0))"]

_NODE_USES = [
    ["same = node is ILAST[0]", "ILAST[0] = node", "if same:", "    k += 1"],
    ["if node is not INODES[1]:", "    acc = acc + node.v * 0.1"],
    ["if hash(node) == hash(INODES[1]):", "    acc = acc * 1.5"],
    ["ordered = sorted([node, INODES[1]], key=id)",  # (which is first differs per side)
     "acc = acc + ordered[0].v * ordered[1].v * 0.1"],
    ["ikeys = {id(c): c.v for c in INODES}", "acc = acc + ikeys[id(node)] * 0.1"],
    ["if id(node) == id(INODES[2]):", "    k += 2"],
    ["if node in {INODES[1], INODES[2]}:", "    k += 1"],
]

_TREE_USES = [
    ["imm = {}", "acc = acc + imemo(root, imm) * 0.1", "k += len(imm)"],
    ["iseen = set()", "for c in root.kids:", "    iseen.add(c)", "k += len(iseen)"],
    ["ipos = {c: i for i, c in enumerate(root.kids)}",
     "acc = acc + float(ipos[root.kids[0]])"],
    ["if root.kids[0] is root.kids[1]:", "    acc = acc * 2.0"],
    ["iby = {}", "for c in root.kids:", "    iby[c] = iby.get(c, 0) + 1",
     "k += max(iby.values())"],
]


def _moved(g, use: list, moves: list) -> list:
    """`use` with the heap moved before it (under a test) or after it (every call: the
    next call finds another object where this one read its own)."""
    move = g.choice(moves)
    r = g.rng.random()
    if r < 0.4:
        return [f"if {g.pcond()}:", f"    {move}"] + use
    return use + [move] if r < 0.8 else use


@rule(0.6, max_depth=2)
def object_identity(g):
    """(F347) A node of the program's observed by identity (`is`, id, hash, an id sort
    key, a set), after the node list may have been rotated under a test."""
    _helper(g, _NODES)
    node = f"node = INODES[{g.choice(['0', '1', '-1'])}]"
    return _moved(g, [node] + g.choice(_NODE_USES), _NODE_MOVES)


@rule(0.6, max_depth=2)
def tree_identity(g):
    """(F347) A tree, one of whose two (swapped under a test) shares one child object
    twice, walked with a memo, a set or a dict keyed by its nodes' identity."""
    _helper(g, _NODES)
    return _moved(g, ["root = ITREES[0]"] + g.choice(_TREE_USES), _TREE_MOVES)


_WORDS = '''\
IEMB = tf.reshape(tf.range(12, dtype=tf.float32) / 6.0, [6, 2])
IWORDS = [1, 4, 2]
'''

_WORD_USES = [
    "acc = acc + tf.reduce_sum(tf.gather(IEMB, IWORDS)) * 0.01 * len(IWORDS)",
    "acc = acc + tf.reduce_sum(tf.nn.embedding_lookup(IEMB, IWORDS)) * 0.01 * len(IWORDS)",
    "k += len(IWORDS)\nacc = acc + tf.reduce_sum(tf.gather(IEMB, [IWORDS[0], 0])) * 0.01",
    "acc = acc + tf.cast(tf.reduce_sum(tf.stack([IWORDS])), acc.dtype) * 0.01 * len(IWORDS)",
]


@rule(0.6, max_depth=2)
def list_length_and_handed(g):
    """(F348) A heap list of ints grown (bounded) under a test, its length read and the
    list handed to a TF op."""
    _helper(g, _WORDS)
    grow = g.choice(["IWORDS.append(n % 6)", "IWORDS.insert(0, k % 6)", "IWORDS.pop()"])
    return [f"if {g.pcond()} and 1 < len(IWORDS) < 6:", f"    {grow}"] + \
        g.choice(_WORD_USES).split("\n")
