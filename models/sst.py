"""Stanford Sentiment Treebank reader (PTB-style bracketed trees, one per line).

Format: ``(3 (2 It) (4 (2 's) (2 good)))`` -- every node is ``(label ...)``
with a sentiment label 0..4; a leaf holds one token, an inner node exactly two
child nodes.  Bad input raises ``ValueError("FILE:LINE: ...")``.
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Optional

from models.text import Vocab
from models.trees import Node, leaves

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SAMPLE_PATH = os.path.join(DATA_DIR, "sst_sample.txt")
CLASSES = 5

_TOKENS = re.compile(r"\(|\)|[^\s()]+")


class _ParseError(Exception):
    pass


def parse_tree(line: str) -> Node:
    """Parse one bracketed tree; leaves get ``token`` (the word string), no ``word`` id yet."""
    tokens = _TOKENS.findall(line)
    if not tokens:
        raise _ParseError("empty tree")
    pos = 0

    def expect(what: str) -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise _ParseError(f"unexpected end of line, expected {what}")
        tok = tokens[pos]
        pos += 1
        return tok

    def node() -> Node:
        if expect("'('") != "(":
            raise _ParseError(f"expected '(' but found {tokens[pos - 1]!r}")
        label_text = expect("a label")
        if not label_text.isdigit() or not 0 <= int(label_text) < CLASSES:
            raise _ParseError(f"label must be an integer 0..{CLASSES - 1}, found {label_text!r}")
        label = int(label_text)
        if pos < len(tokens) and tokens[pos] not in "()":
            token = expect("a word")
            if expect("')'") != ")":
                raise _ParseError(f"leaf {token!r} must hold exactly one word")
            return Node(label=label, token=token)
        children = []
        while pos < len(tokens) and tokens[pos] == "(":
            children.append(node())
        if expect("')'") != ")":
            raise _ParseError(f"expected ')' but found {tokens[pos - 1]!r}")
        if len(children) != 2:
            raise _ParseError(f"inner node must have exactly 2 children, found {len(children)}")
        return Node(label=label, left=children[0], right=children[1])

    tree = node()
    if pos != len(tokens):
        raise _ParseError(f"unexpected text after the tree: {' '.join(tokens[pos:pos + 3])!r}")
    return tree


def read_trees(path: str) -> list[Node]:
    """All trees of an SST file (blank lines skipped), without word ids."""
    trees = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                trees.append(parse_tree(line))
            except _ParseError as e:
                raise ValueError(f"{path}:{lineno}: {e}") from None
            except RecursionError:
                raise ValueError(f"{path}:{lineno}: tree nested too deeply") from None
    if not trees:
        raise ValueError(f"{path}: no trees")
    return trees


def build_vocab(trees: Iterable[Node], max_size: Optional[int] = None, lower: bool = True) -> Vocab:
    """Vocabulary over the leaf tokens (id 0 is ``<unk>``)."""
    return Vocab.build((t.token.lower() if lower else t.token) for tree in trees for t in leaves(tree))


def assign_ids(trees: Iterable[Node], vocab: Vocab, lower: bool = True) -> None:
    """Set ``leaf.word`` to the token's id (``<unk>`` = 0 for unknown tokens)."""
    for tree in trees:
        for leaf in leaves(tree):
            leaf.word = int(vocab.encode([leaf.token.lower() if lower else leaf.token])[0])


def load(path: str = SAMPLE_PATH, vocab: Optional[Vocab] = None) -> tuple[list[Node], Vocab]:
    """Read an SST file and give its leaves word ids (building the vocabulary if none given)."""
    trees = read_trees(path)
    vocab = vocab or build_vocab(trees)
    assign_ids(trees, vocab)
    return trees, vocab
