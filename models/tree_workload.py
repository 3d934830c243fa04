"""What the two recursive tree models share: sizes, data, state and workload wiring."""
from __future__ import annotations

from typing import Callable, Optional

import keras
import numpy as np
import tensorflow as tf

from models import sst
from models.common import Workload, check_size
from models.trees import Node, synthetic_trees

SIZES = {
    # size: (batch, embed, hidden, vocab, min_len, max_len, mean_len)
    "full": (25, 300, 150, 5000, 2, 56, 19.0),
    "quick": (5, 64, 32, 1000, 2, 56, 19.0),
    "tiny": (3, 8, 6, 30, 2, 6, 4.0),
}
LEARNING_RATE = 0.1


class TreeState:
    def __init__(self, model: tf.Module, optimizer):
        self.model = model
        self.optimizer = optimizer


def tree_batches(trees: list[Node], batch: int, n: int) -> list[tuple[list[Node], tf.Tensor]]:
    """n (trees, root labels) batches, consecutive slices wrapping around ``trees``."""
    per_epoch = max(1, len(trees) // batch)
    out = []
    for k in range(n):
        chunk = trees[(k % per_epoch) * batch:(k % per_epoch + 1) * batch]
        out.append((chunk, tf.constant([t.label for t in chunk], dtype=tf.int32)))
    return out


def tree_workload(name: str, make_model: Callable[..., tf.Module], step: Callable,
                  expert: Callable, size: str, seed: int,
                  sst_path: Optional[str] = None) -> Workload:
    """Wire a recursive tree model into a Workload on synthetic (or SST) trees."""
    batch, embed, hidden, vocab, min_len, max_len, mean_len = SIZES[check_size(size)]
    if sst_path:
        fixed, voc = sst.load(sst_path)
        vocab = len(voc)
    else:
        fixed = None

    def batches(n: int) -> list:
        if fixed is not None:
            return tree_batches(fixed, min(batch, len(fixed)), n)
        trees = synthetic_trees(n * batch, vocab, seed=seed + 7, min_len=min_len,
                                max_len=max_len, mean_len=mean_len)
        return tree_batches(trees, batch, n)

    def make_state() -> TreeState:
        model = make_model(vocab, embed=embed, hidden=hidden, seed=seed)
        optimizer = keras.optimizers.SGD(LEARNING_RATE)
        optimizer.build(model.trainable_variables)
        return TreeState(model, optimizer)

    return Workload(
        name=name, category="TreeNN", make_state=make_state, step=step, batches=batches,
        variables=lambda state: list(state.model.trainable_variables), expert=expert,
        items_per_step=batch, item_name="trees", tolerance=1e-4, size=size,
        params=dict(batch=batch, embed=embed, hidden=hidden, vocab=vocab,
                    sentence_len=[min_len, max_len], mean_len=mean_len,
                    data=sst_path or "synthetic"),
    )


def init_uniform(rng: np.random.Generator, shape: tuple, scale: float, name: str) -> tf.Variable:
    return tf.Variable(rng.uniform(-scale, scale, shape).astype(np.float32), name=name)
