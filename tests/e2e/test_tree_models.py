"""Recursive models under janus: one batched SubGraph run per step, equal to eager."""
import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from models import treelstm, treernn
from models.trees import Node, synthetic_trees

VOCAB = 30


def leaf(word, label=1):
    return Node(label=label, word=word)


def inner(left, right, label=2):
    return Node(label=label, left=left, right=right)


def left_chain(depth):
    node = leaf(0)
    for i in range(depth):
        node = inner(node, leaf((i + 1) % VOCAB))
    return node


def balanced(depth, start=0):
    if depth == 0:
        return leaf(start % VOCAB)
    return inner(balanced(depth - 1, start), balanced(depth - 1, start + 2 ** (depth - 1)))


def batch(trees):
    return trees, tf.constant([t.label for t in trees], tf.int32)


def _state(model_cls):
    from models.tree_workload import TreeState
    model = model_cls(VOCAB, embed=8, hidden=6, seed=3)
    optimizer = keras.optimizers.SGD(0.1)
    optimizer.build(model.trainable_variables)
    return TreeState(model, optimizer)


def _assert_same_variables(a, b, tol=1e-4):
    for x, y in zip(a.model.trainable_variables, b.model.trainable_variables):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=tol, atol=tol)


BATCHES = [
    batch([leaf(3)]),                                         # a single leaf
    batch([left_chain(50), leaf(5)]),                         # a deep left-branching chain
    batch([balanced(3), balanced(2, 5)]),                     # balanced
    batch(synthetic_trees(4, VOCAB, seed=1, min_len=2, max_len=12, mean_len=6.0)),  # mixed
    batch(synthetic_trees(3, VOCAB, seed=2, min_len=2, max_len=12, mean_len=6.0)),
    batch([balanced(2), left_chain(7), leaf(1)]),
]


@pytest.mark.parametrize("module", [pytest.param(treelstm, marks=pytest.mark.slow), treernn],
                         ids=["treelstm", "treernn"])
def test_training_steps_equal_eager_and_run_as_one_graph_per_step(module):
    model_cls = treelstm.TreeLSTM if module is treelstm else treernn.TreeRNN
    eager_state, janus_state = _state(model_cls), _state(model_cls)
    step = janus.jit(module.step)
    for trees, labels in BATCHES + BATCHES:
        expected = module.step(eager_state, trees, labels)
        actual = step(janus_state, trees, labels)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
        _assert_same_variables(eager_state, janus_state)
    stats = janus.stats(step)
    # the single leaf's second call runs plainly: Python's tape gives the compose weights
    # None (no internal node ran), the graph's level loop ran no iteration (its gradient
    # would be zeros: graphgen/connectivity.py checks the loop ran, F138)
    assert stats.fallback_calls == 1
    assert stats.graph_calls == stats.calls - stats.profile_calls - 1
    # batch sizes 1..4 each get a graph (the list length is guarded); shapes never do
    assert stats.generations <= len({len(t) for t, _ in BATCHES})
    spec = step.specializations[0]
    assert len(spec.subgraphs) == 1
    assert len(spec.subgraphs[0].invoke_ops) == 2


def test_new_tree_shapes_cause_no_new_generation():
    eager_state, janus_state = _state(treelstm.TreeLSTM), _state(treelstm.TreeLSTM)
    step = janus.jit(treelstm.step)
    for seed in range(8):
        trees, labels = batch(synthetic_trees(3, VOCAB, seed=seed, min_len=2, max_len=20,
                                              mean_len=8.0))
        expected = treelstm.step(eager_state, trees, labels)
        actual = step(janus_state, trees, labels)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)
    stats = janus.stats(step)
    assert stats.generations == 1
    assert stats.graph_calls == 6


def test_inference_forward_values_equal_eager():
    model = treelstm.TreeLSTM(VOCAB, embed=8, hidden=6, seed=4)

    def encode_all(model, trees):
        return tf.concat([model.encode(t)[0] for t in trees], 0)

    jitted = janus.jit(encode_all)
    for trees, _ in BATCHES[1:4] + BATCHES[1:4]:
        np.testing.assert_allclose(jitted(model, trees).numpy(), encode_all(model, trees).numpy(),
                                   rtol=1e-5, atol=1e-6)
    assert janus.stats(jitted).graph_calls >= 3


def test_structure_not_covered_falls_back_and_changes_nothing():
    eager_state, janus_state = _state(treelstm.TreeLSTM), _state(treelstm.TreeLSTM)
    step = janus.jit(treelstm.step)
    trees, labels = BATCHES[3]
    for _ in range(3):
        treelstm.step(eager_state, trees, labels)
        step(janus_state, trees, labels)
    # an inner node whose child is missing: eager raises; so must janus, leaving no trace
    broken = inner(leaf(1), leaf(2))
    broken.left = None
    bad = [broken, trees[1], trees[2], trees[3]]
    before = [v.numpy().copy() for v in janus_state.model.trainable_variables]
    with pytest.raises(AttributeError):
        treelstm.step(_state(treelstm.TreeLSTM), bad, labels)
    with pytest.raises(AttributeError):
        step(janus_state, bad, labels)
    for v, old in zip(janus_state.model.trainable_variables, before):
        np.testing.assert_array_equal(v.numpy(), old)
    # a word id that is a float where ints were always seen: a guard, then eager
    odd = [leaf(2.0), trees[1], trees[2], trees[3]]
    with pytest.raises(Exception) as eager_error:
        treelstm.step(_state(treelstm.TreeLSTM), odd, labels)
    with pytest.raises(type(eager_error.value)):
        step(janus_state, odd, labels)
    assert janus.stats(step).guard_failures


def test_tensor_valued_structure_is_not_batched_but_stays_correct():
    model = treernn.TreeRNN(VOCAB, embed=8, hidden=6, seed=4)

    def encode_all(model, trees):
        return tf.concat([model.encode(t)[0] for t in trees], 0)

    jitted = janus.jit(encode_all)
    trees = [balanced(2), leaf(3)]
    for node in [trees[0], trees[0].left, trees[0].right, trees[1]]:
        node.is_leaf = tf.constant(node.is_leaf)
    for _ in range(4):
        np.testing.assert_allclose(jitted(model, trees).numpy(), encode_all(model, trees).numpy(),
                                   rtol=1e-5, atol=1e-6)
