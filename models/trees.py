"""Binary parse trees as plain Python objects, a seeded synthetic tree generator,
and the level-batched node table used by the hand-written symbolic tree models.
"""
from __future__ import annotations

from typing import Callable, Iterator, Optional, Sequence

import numpy as np


class Node:
    """A binary tree node: a leaf holds a word id, an inner node two children.

    Plain attributes (``is_leaf``, ``word``, ``left``, ``right``, ``label``) so
    the recursive models read them the way a researcher would.
    """

    def __init__(self, label: Optional[int] = None, word: Optional[int] = None,
                 left: Optional["Node"] = None, right: Optional["Node"] = None,
                 token: Optional[str] = None):
        if (left is None) != (right is None):
            raise ValueError("a node has either two children or none")
        self.label = label
        self.word = word
        self.left = left
        self.right = right
        self.token = token
        self.is_leaf = left is None

    def __repr__(self) -> str:
        return to_string(self)


def iter_nodes(root: Node) -> Iterator[Node]:
    """All nodes in post-order (children before parents), without recursion."""
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node.is_leaf or expanded:
            yield node
        else:
            stack.append((node, True))
            stack.append((node.right, False))
            stack.append((node.left, False))


def leaves(root: Node) -> list[Node]:
    return [n for n in iter_nodes(root) if n.is_leaf]


def depth(root: Node) -> int:
    """Height of the tree: 0 for a single leaf."""
    heights: dict[int, int] = {}
    for n in iter_nodes(root):
        heights[id(n)] = 0 if n.is_leaf else 1 + max(heights[id(n.left)], heights[id(n.right)])
    return heights[id(root)]


def to_string(root: Node) -> str:
    """PTB-style bracketing, e.g. ``(3 (2 It) (4 (2 's) (2 good)))``."""
    parts: dict[int, str] = {}
    for n in iter_nodes(root):
        label = "" if n.label is None else f"{n.label} "
        inner = (n.token if n.token is not None else str(n.word)) if n.is_leaf else \
            f"{parts.pop(id(n.left))} {parts.pop(id(n.right))}"
        parts[id(n)] = f"({label}{inner})"
    return parts[id(root)]


# --- synthetic trees ---------------------------------------------------------

def sentence_lengths(rng: np.random.Generator, n: int, mean: float = 19.0,
                     low: int = 2, high: int = 56) -> np.ndarray:
    """SST-like sentence lengths: gamma-distributed (mean ~19, sd ~9), clipped to [low, high]."""
    shape = 4.5
    lengths = np.rint(rng.gamma(shape, mean / shape, size=n)).astype(int)
    return np.clip(lengths, low, high)


def random_tree(rng: np.random.Generator, words: Sequence[int], polarity: np.ndarray,
                classes: int = 5) -> Node:
    """Random binary bracketing of ``words``.  A node's label quantizes
    ``tanh(sum of its words' polarities / sqrt(span length))`` into ``classes``
    bins, so labels are learnable and spread over all classes."""
    def build(lo: int, hi: int) -> tuple[Node, float]:
        if hi - lo == 1:
            total = float(polarity[words[lo]])
            return Node(label=_quantize(total, 1, classes), word=int(words[lo])), total
        split = int(rng.integers(lo + 1, hi))
        left, left_total = build(lo, split)
        right, right_total = build(split, hi)
        total = left_total + right_total
        return Node(label=_quantize(total, hi - lo, classes), left=left, right=right), total

    return build(0, len(words))[0]


def _quantize(total: float, count: int, classes: int) -> int:
    score = np.tanh(total / np.sqrt(count))
    return int(np.clip(np.floor((score + 1.0) / 2.0 * classes), 0, classes - 1))


def synthetic_trees(n: int, vocab_size: int, seed: int = 0, min_len: int = 2, max_len: int = 56,
                    mean_len: float = 19.0) -> list[Node]:
    """n seeded random trees with Zipfian word ids in [1, vocab_size) (0 is ``<unk>``)."""
    rng = np.random.default_rng(seed)
    polarity = rng.standard_normal(vocab_size)
    ranks = np.arange(1, vocab_size, dtype=np.float64)
    p = ranks ** -1.05
    p /= p.sum()
    trees = []
    for _ in range(n):  # one tree at a time: the first k trees do not depend on n
        length = sentence_lengths(rng, 1, mean=mean_len, low=min_len, high=max_len)[0]
        words = rng.choice(np.arange(1, vocab_size), size=int(length), p=p)
        trees.append(random_tree(rng, words, polarity))
    return trees


# --- level batching ----------------------------------------------------------

class NodeTable:
    """A batch of trees flattened for level-by-level evaluation.

    Nodes are numbered leaves first, then inner nodes level by level (a node's
    level is its height: leaves 0, parents 1 + max of their children), so every
    child is numbered before its parent.  Arrays (all int32):

    words: [n_leaves] word id of each leaf (node i < n_leaves is leaf i);
    left, right: [n_inner] node numbers of the children of inner node n_leaves + k;
    level_starts: [levels + 1] offsets into left/right where each level starts;
    roots: [n_trees] node number of each tree's root.
    """

    def __init__(self, trees: Sequence[Node]):
        leaves_, inner = [], []  # inner: (level, node)
        level: dict[int, int] = {}
        for tree in trees:
            for n in iter_nodes(tree):
                if n.is_leaf:
                    level[id(n)] = 0
                    leaves_.append(n)
                else:
                    level[id(n)] = 1 + max(level[id(n.left)], level[id(n.right)])
                    inner.append(n)
        inner.sort(key=lambda n: level[id(n)])  # stable: keeps post-order within a level
        number = {id(n): i for i, n in enumerate(leaves_)}
        number.update({id(n): len(leaves_) + k for k, n in enumerate(inner)})
        self.words = np.array([n.word for n in leaves_], dtype=np.int32)
        self.left = np.array([number[id(n.left)] for n in inner], dtype=np.int32)
        self.right = np.array([number[id(n.right)] for n in inner], dtype=np.int32)
        levels = np.array([level[id(n)] for n in inner], dtype=np.int32)
        n_levels = int(levels.max()) if len(levels) else 0
        counts = np.bincount(levels, minlength=n_levels + 1)[1:]
        self.level_starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        self.roots = np.array([number[id(t)] for t in trees], dtype=np.int32)

    def tensors(self) -> tuple:
        """(words, left, right, level_starts, roots) as int32 tensors."""
        import tensorflow as tf

        return tuple(tf.constant(a, dtype=tf.int32) for a in
                     (self.words, self.left, self.right, self.level_starts, self.roots))


TABLE_SIGNATURE_LEN = 5


def table_signature() -> list:
    """tf.TensorSpecs matching `NodeTable.tensors` (all dynamic length)."""
    import tensorflow as tf

    return [tf.TensorSpec([None], tf.int32) for _ in range(TABLE_SIGNATURE_LEN)]


def run_levels(words, left, right, level_starts, roots,
               leaf_fn: Callable, compose_fn: Callable, width: int):
    """Graph-side evaluation of a `NodeTable`: all leaves in one batched call,
    then one batched ``compose_fn`` per level inside a ``tf.while_loop``.

    leaf_fn(words [n]) -> [n, width]; compose_fn(left [n, width], right [n, width])
    -> [n, width].  Returns the root states [n_trees, width].
    """
    import tensorflow as tf

    buffer = leaf_fn(words)
    n_levels = tf.shape(level_starts)[0] - 1

    def body(level, buffer):
        start, end = level_starts[level], level_starts[level + 1]
        new = compose_fn(tf.gather(buffer, left[start:end]), tf.gather(buffer, right[start:end]))
        return level + 1, tf.concat([buffer, new], axis=0)

    _, buffer = tf.while_loop(
        lambda level, _: level < n_levels, body, (tf.constant(0), buffer),
        shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, width])))
    return tf.gather(buffer, roots)
