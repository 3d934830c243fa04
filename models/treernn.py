"""Recursive neural network (plain tanh cell) over binary parse trees.

Same data and level-batched expert scheme as `models.treelstm`, simpler cell:
leaf ``h = tanh(W_leaf x + b_leaf)``, inner ``h = tanh(W [h_l; h_r] + b)``.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import tensorflow as tf

from models.common import Workload, glorot, run_script, zeros
from models.tree_workload import TreeState, init_uniform, tree_workload
from models.trees import NodeTable, run_levels, table_signature


class TreeRNN(tf.Module):
    def __init__(self, vocab: int, embed: int = 300, hidden: int = 150, classes: int = 5, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.hidden = hidden
        self.embedding = init_uniform(rng, (vocab, embed), 0.05, "embedding")
        self.W_leaf = glorot(rng, (embed, hidden), "leaf_W")
        self.b_leaf = zeros((hidden,), "leaf_b")
        self.W = glorot(rng, (2 * hidden, hidden), "compose_W")
        self.b = zeros((hidden,), "compose_b")
        self.W_out = glorot(rng, (hidden, classes), "out_W")
        self.b_out = zeros((classes,), "out_b")

    def leaf(self, x):
        return tf.tanh(tf.matmul(x, self.W_leaf) + self.b_leaf)

    def compose(self, left, right):
        return tf.tanh(tf.matmul(tf.concat([left, right], axis=1), self.W) + self.b)

    def encode(self, node):
        if node.is_leaf:
            return self.leaf(tf.nn.embedding_lookup(self.embedding, [node.word]))
        return self.compose(self.encode(node.left), self.encode(node.right))

    def project(self, h):
        return tf.matmul(h, self.W_out) + self.b_out


def step(state: TreeState, trees, labels) -> tf.Tensor:
    """Mean root cross-entropy over the batch, one SGD step."""
    model = state.model
    with tf.GradientTape() as tape:
        losses = []
        for i, tree in enumerate(trees):
            logits = model.project(model.encode(tree))
            losses.append(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(labels[i], [1]), logits=logits)[0])
        loss = tf.add_n(losses) / len(losses)
    grads = tape.gradient(loss, model.trainable_variables)
    state.optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def make_expert(state: TreeState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """Level-batched symbolic TreeRNN step."""
    model, optimizer = state.model, state.optimizer
    variables = model.trainable_variables
    signature = table_signature() + [tf.TensorSpec([None], tf.int32)]

    @tf.function(input_signature=signature, jit_compile=jit_compile, autograph=False)
    def graph_step(words, left, right, level_starts, roots, labels):
        with tf.GradientTape() as tape:
            leaf_fn = lambda w: model.leaf(tf.nn.embedding_lookup(model.embedding, w))
            states = run_levels(words, left, right, level_starts, roots, leaf_fn, model.compose, model.hidden)
            losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=model.project(states))
            loss = tf.reduce_sum(losses) / tf.cast(tf.shape(labels)[0], tf.float32)
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    def run(trees, labels):
        return graph_step(*NodeTable(trees).tensors(), labels)

    return run


def workload(size: str = "full", seed: int = 0, sst_path: Optional[str] = None) -> Workload:
    return tree_workload("treernn", TreeRNN, step, make_expert, size, seed, sst_path)


if __name__ == "__main__":
    run_script(workload)
