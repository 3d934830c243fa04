"""The LSTM language model and its text pipeline."""
import os

import numpy as np
import pytest

from models import lstm_lm, text
from models.common import to_float


def test_eager_steps_run_and_carry_hidden():
    wl = lstm_lm.workload("tiny")
    state = wl.make_state()
    h0 = np.array(state.model.hidden[0])
    losses = [to_float(wl.step(state, *b)) for b in wl.batches(3)]
    assert all(np.isfinite(losses))
    assert not np.allclose(np.array(state.model.hidden[0]), h0)


def test_expert_matches_eager(expert_matches_eager):
    expert_matches_eager(lstm_lm.workload("tiny"), n_steps=4, atol=1e-5)


def test_full_size_parameters():
    wl = lstm_lm.workload("full")
    assert wl.params == dict(vocab=10000, embed=200, hidden=256, bptt=35, batch=20, source="zipf")
    x, y = wl.batches(1)[0]
    assert x.shape == (20, 35) and y.shape == (20, 35)
    np.testing.assert_array_equal(x.numpy()[:, 1:], y.numpy()[:, :-1])


def test_custom_corpus(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text("a b c d e f g h i j k l m n o p q r s t u v w x y z\n" * 3)
    wl = lstm_lm.workload("tiny", corpus_path=str(path))
    assert wl.params["source"] == str(path) and wl.params["vocab"] == 28  # 26 words + specials
    state = wl.make_state()
    assert np.isfinite(to_float(wl.step(state, *wl.batches(1)[0])))


def test_tokenize():
    assert text.tokenize("The man's lamp, lit.") == ["the", "man's", "lamp", ",", "lit", "."]


def test_vocab_build_encode_decode():
    voc = text.Vocab.build("b a b c b a".split())
    assert voc.words == ["<unk>", "<eos>", "b", "a", "c"]
    assert voc.encode(["a", "zzz"]).tolist() == [3, 0]
    assert voc.decode([2, 4]) == ["b", "c"]
    small = text.Vocab.build("b a b c b a".split(), max_size=3)
    assert small.words == ["<unk>", "<eos>", "b"] and small.encode(["c"]).tolist() == [0]


def test_read_shipped_corpus():
    tokens = text.read_corpus()
    assert os.path.getsize(text.CORPUS_PATH) > 3000
    assert len(tokens) > 800 and tokens.count(text.EOS) >= 20
    assert len(text.Vocab.build(tokens)) > 300


def test_read_corpus_bad_input(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n")
    with pytest.raises(ValueError, match="empty.txt: corpus has no tokens"):
        text.read_corpus(str(empty))
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"ok\n\xff\xfe\x00")
    with pytest.raises(ValueError, match="bin.txt: not UTF-8"):
        text.read_corpus(str(binary))


def test_zipf_stream_deterministic_and_zipfian():
    a = text.zipf_stream(20000, 500, seed=1)
    np.testing.assert_array_equal(a, text.zipf_stream(20000, 500, seed=1))
    assert a.min() >= 1 and a.max() < 500 and a.dtype == np.int32
    counts = np.bincount(a, minlength=500)
    assert counts[2] > counts[10] > counts[100]
    assert 0.03 < np.mean(a == 1) < 0.07  # <eos> about every 20 tokens


def test_batchify_and_windows():
    rows = text.batchify(np.arange(23), 2)
    assert rows.shape == (2, 11) and rows[1, 0] == 11
    windows = text.bptt_windows(rows, 4, 4)
    x, y = windows[0]
    assert x.tolist() == [[0, 1, 2, 3], [11, 12, 13, 14]] and y[0].tolist() == [1, 2, 3, 4]
    np.testing.assert_array_equal(windows[2][0], windows[0][0])  # wraps around
    with pytest.raises(ValueError):
        text.batchify(np.arange(3), 2)
