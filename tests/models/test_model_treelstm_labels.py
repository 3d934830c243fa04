"""The TreeLSTM trainer with per-tree Python labels: expert equals eager."""
import numpy as np

from models import treelstm_labels
from models.trees import Node


def test_training_expert_matches_eager(expert_matches_eager):
    losses, _, _ = expert_matches_eager(treelstm_labels.workload("tiny"), n_steps=3, atol=1e-5)
    assert all(np.isfinite(losses))


def test_inference_expert_matches_eager(expert_matches_eager):
    expert_matches_eager(treelstm_labels.inference_workload("tiny", seed=2), n_steps=2, atol=1e-5)


def test_batches_are_lists_of_labelled_trees():
    wl = treelstm_labels.workload("tiny")
    (trees,), = wl.batches(1)
    assert len(trees) == wl.params["batch"] and all(isinstance(t, Node) for t in trees)
    assert all(type(t.label) is int for t in trees)
    assert len({t.label for t in trees}) > 1  # labels differ across the batch's trees


def test_sgd_updates_embedding_rows_sparsely():
    wl = treelstm_labels.workload("tiny")
    state = wl.make_state()
    before = state.model.embedding.numpy().copy()
    (trees,), = wl.batches(1)
    wl.step(state, trees)
    changed = np.any(before != state.model.embedding.numpy(), axis=1)
    words = {n.word for t in trees for n in _nodes(t) if n.is_leaf}
    assert set(np.nonzero(changed)[0]) == words


def _nodes(tree):
    yield tree
    if not tree.is_leaf:
        yield from _nodes(tree.left)
        yield from _nodes(tree.right)


def test_janus_equals_eager_with_one_generation_for_all_batches():
    import janus
    from tests.models.conftest import assert_same_variables
    from models.common import to_float

    for wl in (treelstm_labels.workload("tiny"), treelstm_labels.inference_workload("tiny")):
        eager_state, janus_state = wl.make_state(), wl.make_state()
        step = janus.jit(wl.step)
        for batch in wl.batches(6):
            expected = to_float(wl.step(eager_state, *batch))
            actual = to_float(step(janus_state, *batch))
            np.testing.assert_allclose(actual, expected, atol=1e-4, rtol=0)
        assert_same_variables(wl, eager_state, janus_state, atol=1e-4)
        stats = janus.stats(step)
        assert stats.generations == 1 and stats.graph_calls == 4, janus.explain(step)
