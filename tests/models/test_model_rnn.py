"""The LSTM RNN: imperative steps run, state carries over, expert computes the same."""
import numpy as np
import tensorflow as tf

from models import rnn
from models.common import to_float


def test_eager_steps_run_and_carry_state():
    wl = rnn.workload("tiny")
    state = wl.make_state()
    batches = wl.batches(3)
    assert len({len(seq) for seq, _ in batches}) > 1 or len(batches[0][0]) >= 3
    before = [np.array(t) for t in state.model.state]
    losses = [to_float(wl.step(state, *b)) for b in batches]
    assert all(np.isfinite(losses))
    after = state.model.state
    assert isinstance(after[0], tf.Tensor) and after[0].shape == before[0].shape
    assert not np.allclose(np.array(after[0]), before[0])


def test_sequence_lengths_vary_within_bounds():
    wl = rnn.workload("full")
    assert wl.params["hidden"] == 256 and wl.params["batch"] == 32 and wl.params["input"] == 128
    lengths = [len(s) for s, _ in rnn.make_batches(20, 2, 3, 10, 50, seed=0)]
    assert min(lengths) >= 10 and max(lengths) <= 50 and len(set(lengths)) > 5


def test_same_seed_same_weights_and_batches():
    wl = rnn.workload("tiny", seed=3)
    a, b = wl.make_state(), wl.make_state()
    for va, vb in zip(wl.variables(a), wl.variables(b)):
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    (s1, t1), (s2, t2) = wl.batches(1)[0], wl.batches(1)[0]
    np.testing.assert_array_equal(s1[0].numpy(), s2[0].numpy())
    other = rnn.workload("tiny", seed=4).make_state()
    assert not np.allclose(wl.variables(a)[0].numpy(), wl.variables(other)[0].numpy())


def test_hidden_override_names_workload():
    wl = rnn.workload("tiny", hidden=5)
    assert wl.name == "rnn_h5" and wl.params["hidden"] == 5
    assert rnn.workload("tiny").name == "rnn"


def test_expert_matches_eager(expert_matches_eager):
    expert_matches_eager(rnn.workload("tiny"), n_steps=4, atol=1e-5)


def test_expert_matches_eager_small_hidden(expert_matches_eager):
    expert_matches_eager(rnn.workload("tiny", hidden=3, seed=1), n_steps=3, atol=1e-5)
