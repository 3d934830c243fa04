"""TreeLSTM sentiment trainer written the usual way: labels live on the Python trees.

A new user's recursive trainer: each tree is a Python ``Node`` (``word``/``left``/
``right``/``label``), the loss is a sum over the batch's trees of
``sparse_softmax_cross_entropy_with_logits(labels=[tree.label], ...)``, and the update is a
hand-written SGD that checks ``isinstance(g, tf.IndexedSlices)`` (the embedding's
gradient is sparse). The batch is only the list of trees: no label tensor.

The expert version linearizes the batch's trees into level arrays on the host (this
counts in its time) and computes every level of all trees in one
``tf.function(autograph=False)``.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import tensorflow as tf

from models import sst
from models.common import Workload, check_size, run_script
from models.tree_workload import SIZES, TreeState
from models.treelstm import TreeLSTM, level_batched_logits
from models.trees import NodeTable, synthetic_trees, table_signature

LEARNING_RATE = 0.05


class SGD:
    """Plain SGD by hand: sparse rows for embedding gradients, dense updates otherwise."""

    def __init__(self, learning_rate: float):
        self.learning_rate = learning_rate

    def apply(self, grads, variables):
        for g, v in zip(grads, variables):
            if g is None:
                continue
            if isinstance(g, tf.IndexedSlices):
                v.scatter_sub(tf.IndexedSlices(self.learning_rate * g.values, g.indices,
                                               g.dense_shape))
            else:
                v.assign_sub(self.learning_rate * g)


def tree_loss(model: TreeLSTM, tree) -> tf.Tensor:
    """Cross-entropy of one tree's root prediction against its Python label."""
    h, _ = model.encode(tree)
    logits = model.project(h)
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[tree.label], logits=logits)[0]


def train_step(model: TreeLSTM, trees, optimizer: SGD) -> tf.Tensor:
    """Summed root loss over the batch's trees, one SGD step."""
    with tf.GradientTape() as tape:
        loss = 0.0
        for tree in trees:
            loss += tree_loss(model, tree)
    variables = model.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply(grads, variables)
    return loss


def step(state: TreeState, trees) -> tf.Tensor:
    return train_step(state.model, trees, state.optimizer)


def predict(state: TreeState, trees):
    """Inference as a user writes it: encode each tree, project its root; the summed
    root logits (comparable across executors)."""
    model = state.model
    total = 0.0
    for tree in trees:
        h, _ = model.encode(tree)
        logits = model.project(h)
        total += tf.reduce_sum(logits)
    return total


# --- expert: host linearization + one level-batched graph -------------------------

def linearize(trees) -> tuple:
    """The batch's trees as level arrays plus the labels, as tensors (host work)."""
    table = NodeTable(trees)
    labels = tf.constant(np.array([t.label for t in trees], np.int32))
    return table.tensors() + (labels,)


def make_expert(state: TreeState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """Level-batched training step: the same loss and SGD, all trees at once."""
    model, optimizer = state.model, state.optimizer
    variables = model.trainable_variables
    roots_logits = level_batched_logits(model)
    signature = table_signature() + [tf.TensorSpec([None], tf.int32)]

    @tf.function(input_signature=signature, jit_compile=jit_compile, autograph=False)
    def graph_step(words, left, right, level_starts, roots, labels):
        with tf.GradientTape() as tape:
            logits = roots_logits(words, left, right, level_starts, roots)
            loss = tf.reduce_sum(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, variables)
        optimizer.apply(grads, variables)
        return loss

    return lambda trees: graph_step(*linearize(trees))


def make_inference_expert(state: TreeState, jit_compile: bool = False) -> Callable:
    roots_logits = level_batched_logits(state.model)

    @tf.function(input_signature=table_signature(), jit_compile=jit_compile, autograph=False)
    def forward(words, left, right, level_starts, roots):
        return tf.reduce_sum(roots_logits(words, left, right, level_starts, roots))

    return lambda trees: forward(*NodeTable(trees).tensors())


# --- workloads -----------------------------------------------------------------

def _workload(name: str, step_fn, expert, size: str, seed: int,
              sst_path: Optional[str]) -> Workload:
    batch, embed, hidden, vocab, min_len, max_len, mean_len = SIZES[check_size(size)]
    fixed = None
    if sst_path:
        fixed, voc = sst.load(sst_path)
        vocab = len(voc)

    def batches(n: int) -> list:
        if fixed is not None:
            size_ = min(batch, len(fixed))
            per_epoch = max(1, len(fixed) // size_)
            return [(fixed[(k % per_epoch) * size_:(k % per_epoch + 1) * size_],)
                    for k in range(n)]
        trees = synthetic_trees(n * batch, vocab, seed=seed + 7, min_len=min_len,
                                max_len=max_len, mean_len=mean_len)
        return [(trees[k * batch:(k + 1) * batch],) for k in range(n)]

    def make_state() -> TreeState:
        model = TreeLSTM(vocab, embed=embed, hidden=hidden, seed=seed)
        return TreeState(model, SGD(LEARNING_RATE))

    return Workload(
        name=name, category="TreeNN", make_state=make_state, step=step_fn, batches=batches,
        variables=lambda state: list(state.model.trainable_variables), expert=expert,
        items_per_step=batch, item_name="trees", tolerance=1e-4, size=size,
        params=dict(batch=batch, embed=embed, hidden=hidden, vocab=vocab,
                    sentence_len=[min_len, max_len], mean_len=mean_len,
                    labels="per-tree Python ints", data=sst_path or "synthetic"),
    )


def workload(size: str = "full", seed: int = 0, sst_path: Optional[str] = None) -> Workload:
    """Training: batch 25, hidden 150, embed 300 at full size; labels on the trees."""
    return _workload("treelstm_labels", step, make_expert, size, seed, sst_path)


def inference_workload(size: str = "full", seed: int = 0,
                       sst_path: Optional[str] = None) -> Workload:
    """Inference over the same trees: summed root logits."""
    return _workload("treelstm_labels_infer", predict, make_inference_expert, size, seed,
                     sst_path)


if __name__ == "__main__":
    run_script(workload)
