"""TreeLSTM / TreeRNN, the tree data code, the SST reader, level batching."""
import numpy as np
import pytest

from models import sst, treelstm, treernn, trees


@pytest.mark.parametrize("module", [treelstm, treernn])
def test_eager_steps_and_expert_match(module, expert_matches_eager):
    losses, _, _ = expert_matches_eager(module.workload("tiny"), n_steps=3, atol=1e-5)
    assert all(np.isfinite(losses))


@pytest.mark.parametrize("module", [treelstm, treernn])
def test_expert_matches_on_deep_trees(module, expert_matches_eager, monkeypatch):
    from models import tree_workload as tw

    # tiny widths but full-length sentences (2..56 tokens): many levels per batch
    monkeypatch.setitem(tw.SIZES, "tiny", (4, 6, 5, 40, 2, 56, 19.0))
    expert_matches_eager(module.workload("tiny", seed=1), n_steps=2, atol=1e-4)


def test_expert_matches_on_sst_sample(expert_matches_eager):
    wl = treelstm.workload("tiny", sst_path=sst.SAMPLE_PATH)
    assert wl.params["data"] == sst.SAMPLE_PATH
    expert_matches_eager(wl, n_steps=2, atol=1e-5)


def test_treelstm_full_size_parameters():
    wl = treelstm.workload("full")
    assert (wl.params["batch"], wl.params["embed"], wl.params["hidden"]) == (25, 300, 150)
    model = wl.make_state().model
    assert model.U.shape == (300, 750) and model.W_out.shape == (150, 5)


def test_encode_recurses_over_python_objects():
    model = treelstm.TreeLSTM(vocab=10, embed=4, hidden=3)
    leaf = lambda w: trees.Node(word=w)  # noqa: E731
    tree = trees.Node(left=leaf(1), right=trees.Node(left=leaf(2), right=leaf(3)))
    h, c = model.encode(tree)
    assert h.shape == (1, 3) and c.shape == (1, 3)
    h_leaf, _ = model.encode(leaf(1))
    assert not np.allclose(h.numpy(), h_leaf.numpy())


# --- tree data -------------------------------------------------------------------

def test_synthetic_trees_distribution():
    ts = trees.synthetic_trees(1500, 1000, seed=0)
    lengths = np.array([len(trees.leaves(t)) for t in ts])
    assert 17 < lengths.mean() < 21 and lengths.min() >= 2 and lengths.max() <= 56
    labels = np.bincount([t.label for t in ts], minlength=5)
    assert labels.min() > 100  # every class is represented
    words = [leaf.word for t in ts[:50] for leaf in trees.leaves(t)]
    assert min(words) >= 1 and max(words) < 1000
    again = trees.synthetic_trees(3, 1000, seed=0)
    assert [repr(t) for t in again] == [repr(t) for t in ts[:3]]


def test_node_table_orders_children_first():
    ts = trees.synthetic_trees(6, 50, seed=3, max_len=12)
    table = trees.NodeTable(ts)
    n_leaves = len(table.words)
    assert n_leaves == sum(len(trees.leaves(t)) for t in ts)
    assert len(table.left) == n_leaves - len(ts)  # binary trees: inner = leaves - 1 per tree
    for k, (l, r) in enumerate(zip(table.left, table.right)):
        assert l < n_leaves + k and r < n_leaves + k
    # nodes of one level only depend on earlier levels
    for level in range(len(table.level_starts) - 1):
        start, end = table.level_starts[level], table.level_starts[level + 1]
        assert np.all(table.left[start:end] < n_leaves + start)
        assert np.all(table.right[start:end] < n_leaves + start)
    assert len(table.level_starts) - 1 == max(trees.depth(t) for t in ts)
    assert len(table.roots) == 6 and table.roots.max() == n_leaves + len(table.left) - 1


def test_node_table_single_leaf_tree():
    table = trees.NodeTable([trees.Node(word=3, label=1)])
    assert table.words.tolist() == [3] and table.roots.tolist() == [0]
    assert table.level_starts.tolist() == [0] and len(table.left) == 0


def test_node_requires_two_children_or_none():
    with pytest.raises(ValueError):
        trees.Node(left=trees.Node(word=1))


# --- SST reader ------------------------------------------------------------------

def test_read_sample_file():
    ts, vocab = sst.load()
    assert len(ts) == 20
    lines = [l.strip() for l in open(sst.SAMPLE_PATH) if l.strip()]
    assert [trees.to_string(t) for t in sst.read_trees(sst.SAMPLE_PATH)] == lines
    first = ts[0]
    assert first.label == 3 and first.left.is_leaf and first.left.token == "It"
    assert first.left.word == vocab.index["it"]
    assert all(0 <= t.label < 5 for t in ts)
    assert vocab.words[0] == "<unk>"


@pytest.mark.parametrize("line, message", [
    ("(3 (2 It) (3 good)", "unexpected end of line"),
    ("(7 (2 It) (3 good))", "label must be an integer 0..4, found '7'"),
    ("(x (2 It) (3 good))", "label must be an integer"),
    ("(3 (2 It) (3 good) (2 .))", "exactly 2 children, found 3"),
    ("(3 (2 It))", "exactly 2 children, found 1"),
    ("(3 (2 It) (3 good)) extra", "unexpected text after the tree"),
    ("(2 two words)", "must hold exactly one word"),
    ("2 It)", "expected '('"),
])
def test_bad_input_names_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.txt"
    path.write_text("(3 (2 It) (3 good))\n\n" + line + "\n")
    with pytest.raises(ValueError) as err:
        sst.read_trees(str(path))
    assert f"{path}:3: " in str(err.value) and message in str(err.value)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("\n")
    with pytest.raises(ValueError, match="empty.txt: no trees"):
        sst.read_trees(str(path))


def test_unknown_words_map_to_unk():
    ts, vocab = sst.load()
    other = sst.parse_tree("(2 (2 zyzzyva) (2 good))")
    sst.assign_ids([other], vocab)
    assert other.left.word == 0 and other.right.word == vocab.index["good"]
