"""The core issue's RNN: trains under janus exactly as eagerly, as graphs in steady state."""
import numpy as np
import tensorflow as tf

import janus
from models import rnn


def _max_diff(xs, ys):
    return max(float(tf.reduce_max(tf.abs(tf.cast(x, tf.float64) - tf.cast(y, tf.float64))))
               for x, y in zip(xs, ys))


def test_rnn_trains_like_eager_with_varying_lengths():
    workload = rnn.workload("tiny")
    batches = workload.batches(24)
    lengths = [len(b[0]) for b in batches]
    assert len(set(lengths)) > 2
    eager_state, janus_state = workload.make_state(), workload.make_state()
    step = janus.jit(workload.step)
    for sequence, targets in batches:
        expected = workload.step(eager_state, sequence, targets)
        actual = step(janus_state, sequence, targets)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
        assert _max_diff(workload.variables(eager_state), workload.variables(janus_state)) < 1e-5
        assert _max_diff(eager_state.model.state, janus_state.model.state) < 1e-5
        assert all(isinstance(t, type(tf.constant(0.0))) for t in janus_state.model.state)
    stats = janus.stats(step)
    assert stats.profile_calls == 2
    assert stats.generations <= 2  # lengths vary while profiling: one general graph
    assert stats.graph_calls >= len(batches) - 4
    assert stats.fallback_calls == 0


def test_rnn_lengths_never_seen_while_profiling_run_as_graph():
    workload = rnn.workload("tiny")
    eager_state, janus_state = workload.make_state(), workload.make_state()
    step = janus.jit(workload.step)
    batches = workload.batches(4)
    for sequence, targets in batches:
        step(janus_state, sequence, targets)
        workload.step(eager_state, sequence, targets)
    before = janus.stats(step).graph_calls
    sequence = [tf.ones_like(batches[0][0][0]) * i for i in range(11)]  # longer than any seen
    expected = workload.step(eager_state, sequence, sequence)
    actual = step(janus_state, sequence, sequence)
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-5)
    assert janus.stats(step).graph_calls == before + 1
