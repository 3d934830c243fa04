"""Text data for the language model: tokenizer, vocabulary, corpora, batching.

The shipped corpus `models/data/corpus.txt` is original English prose written
for this repository (public domain).  For vocabulary sizes the small corpus
cannot provide, `zipf_stream` makes a seeded synthetic token stream whose word
frequencies follow Zipf's law, like natural text.
"""
from __future__ import annotations

import collections
import os
import re
from typing import Iterable, Sequence

import numpy as np

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
CORPUS_PATH = os.path.join(DATA_DIR, "corpus.txt")
UNK, EOS = "<unk>", "<eos>"

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")


def tokenize(line: str) -> list[str]:
    """Lower-cased words (keeping contractions like "man's") and punctuation marks."""
    return _TOKEN.findall(line.lower())


class Vocab:
    """Word <-> id mapping; id 0 is ``<unk>``, id 1 is ``<eos>``, then by frequency."""

    def __init__(self, words: Sequence[str]):
        self.words = list(words)
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("vocabulary words must be unique")

    @classmethod
    def build(cls, tokens: Iterable[str], max_size: int | None = None, min_count: int = 1) -> "Vocab":
        """Most frequent tokens first (ties alphabetical); ``max_size`` counts the specials."""
        counts = collections.Counter(t for t in tokens if t not in (UNK, EOS))
        ranked = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        if max_size is not None:
            ranked = ranked[: max(0, max_size - 2)]
        return cls([UNK, EOS] + ranked)

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, tokens: Iterable[str]) -> np.ndarray:
        """Token ids (int32); unknown tokens map to ``<unk>``."""
        unk = self.index[UNK]
        return np.array([self.index.get(t, unk) for t in tokens], dtype=np.int32)

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.words[int(i)] for i in ids]


def read_corpus(path: str = CORPUS_PATH) -> list[str]:
    """Tokens of a UTF-8 text file, one ``<eos>`` after each non-empty line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    tokens: list[str] = []
    for line in lines:
        words = tokenize(line)
        if words:
            tokens.extend(words)
            tokens.append(EOS)
    if not tokens:
        raise ValueError(f"{path}: corpus has no tokens")
    return tokens


def zipf_stream(n_tokens: int, vocab_size: int, seed: int = 0, exponent: float = 1.1) -> np.ndarray:
    """A seeded int32 token stream over ``vocab_size`` ids with Zipfian frequencies.

    Id 1 (``<eos>``) is emitted after sentences of geometric length (mean ~20);
    other ids are drawn with probability proportional to ``rank ** -exponent``.
    """
    if vocab_size < 3:
        raise ValueError("vocab_size must be at least 3 (<unk>, <eos> and one word)")
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab_size - 1, dtype=np.float64)
    p = ranks ** -exponent
    p /= p.sum()
    words = rng.choice(np.arange(2, vocab_size), size=n_tokens, p=p).astype(np.int32)
    ends = rng.random(n_tokens) < 1.0 / 20
    words[ends] = 1
    return words


def batchify(ids: np.ndarray, batch: int) -> np.ndarray:
    """Cut a token stream into ``batch`` parallel rows: shape [batch, len(ids) // batch]."""
    n = len(ids) // batch
    if n < 2:
        raise ValueError(f"stream of {len(ids)} tokens too short for batch {batch}")
    return np.asarray(ids[: n * batch], dtype=np.int32).reshape(batch, n)


def bptt_windows(rows: np.ndarray, bptt: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` consecutive (inputs, targets) windows of width ``bptt``, wrapping around."""
    width = rows.shape[1] - 1
    if width < bptt:
        raise ValueError(f"rows of {rows.shape[1]} tokens too short for bptt {bptt}")
    starts = range(0, width - bptt + 1, bptt)
    out = []
    for k in range(count):
        s = starts[k % len(starts)]
        out.append((rows[:, s : s + bptt], rows[:, s + 1 : s + 1 + bptt]))
    return out
