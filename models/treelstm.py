"""Binary (constituency) TreeLSTM sentiment classifier (Tai et al. 2015), recursive.

The imperative model recurses over plain Python tree objects.  The expert
version flattens a batch of trees into a node table on the host and, inside
one ``tf.function``, evaluates all leaves in one batched call and then every
tree level in one batched call of the same cell (``tf.while_loop`` over levels).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import tensorflow as tf

from models.common import Workload, glorot, run_script, zeros
from models.tree_workload import TreeState, init_uniform, tree_workload
from models.trees import NodeTable, run_levels, table_signature


class TreeLSTM(tf.Module):
    """Leaf: (i, o, u) gates from the word embedding; inner node: gates i, f_l, f_r, o, u."""

    def __init__(self, vocab: int, embed: int = 300, hidden: int = 150, classes: int = 5, seed: int = 0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.hidden = hidden
        self.embedding = init_uniform(rng, (vocab, embed), 0.05, "embedding")
        self.W_leaf = glorot(rng, (embed, 3 * hidden), "leaf_W")
        self.b_leaf = zeros((3 * hidden,), "leaf_b")
        self.U = glorot(rng, (2 * hidden, 5 * hidden), "compose_U")
        self.b = zeros((5 * hidden,), "compose_b")
        self.W_out = glorot(rng, (hidden, classes), "out_W")
        self.b_out = zeros((classes,), "out_b")

    def embed(self, word):
        return tf.nn.embedding_lookup(self.embedding, [word])

    def leaf(self, x):
        i, o, u = tf.split(tf.matmul(x, self.W_leaf) + self.b_leaf, 3, axis=1)
        c = tf.sigmoid(i) * tf.tanh(u)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, c

    def compose(self, left, right):
        (hl, cl), (hr, cr) = left, right
        z = tf.matmul(tf.concat([hl, hr], axis=1), self.U) + self.b
        i, fl, fr, o, u = tf.split(z, 5, axis=1)
        c = tf.sigmoid(i) * tf.tanh(u) + tf.sigmoid(fl) * cl + tf.sigmoid(fr) * cr
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, c

    def encode(self, node):
        if node.is_leaf:
            return self.leaf(self.embed(node.word))
        return self.compose(self.encode(node.left), self.encode(node.right))

    def project(self, h):
        return tf.matmul(h, self.W_out) + self.b_out


def xent(logits, label):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(label, [1]), logits=logits)[0]


def train_step(model: TreeLSTM, trees, labels, optimizer) -> tf.Tensor:
    """Mean root cross-entropy over the batch, one SGD step."""
    with tf.GradientTape() as tape:
        loss = tf.add_n([xent(model.project(model.encode(t)[0]), labels[i]) for i, t in enumerate(trees)])
        loss = loss / len(trees)
    variables = model.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


def step(state: TreeState, trees, labels) -> tf.Tensor:
    return train_step(state.model, trees, labels, state.optimizer)


def level_batched_logits(model: TreeLSTM) -> Callable[..., tf.Tensor]:
    """The experts' cell: `(words, left, right, level_starts, roots) -> root logits`,
    each level of the node table one batched leaf or compose step (symbolic code)."""
    hidden = model.hidden

    def leaf_fn(words):
        h, c = model.leaf(tf.nn.embedding_lookup(model.embedding, words))
        return tf.concat([h, c], axis=1)

    def compose_fn(left, right):
        h, c = model.compose(tf.split(left, 2, axis=1), tf.split(right, 2, axis=1))
        return tf.concat([h, c], axis=1)

    def roots_logits(words, left, right, level_starts, roots):
        states = run_levels(words, left, right, level_starts, roots, leaf_fn, compose_fn,
                            2 * hidden)
        return model.project(states[:, :hidden])

    return roots_logits


def make_expert(state: TreeState, jit_compile: bool = False) -> Callable[..., tf.Tensor]:
    """Level-batched symbolic TreeLSTM step (one trace for all tree shapes)."""
    model, optimizer = state.model, state.optimizer
    variables = model.trainable_variables
    roots_logits = level_batched_logits(model)
    signature = table_signature() + [tf.TensorSpec([None], tf.int32)]

    @tf.function(input_signature=signature, jit_compile=jit_compile, autograph=False)
    def graph_step(words, left, right, level_starts, roots, labels):
        with tf.GradientTape() as tape:
            logits = roots_logits(words, left, right, level_starts, roots)
            losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            loss = tf.reduce_sum(losses) / tf.cast(tf.shape(labels)[0], tf.float32)
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    def run(trees, labels):
        return graph_step(*NodeTable(trees).tensors(), labels)

    return run


def workload(size: str = "full", seed: int = 0, sst_path: Optional[str] = None) -> Workload:
    """TreeLSTM on synthetic trees (or an SST file); batch 25, hidden 150, embed 300 at full size."""
    return tree_workload("treelstm", TreeLSTM, step, make_expert, size, seed, sst_path)


if __name__ == "__main__":
    run_script(workload)
