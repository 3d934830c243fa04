"""A host read's tensor work runs in a segment (janus/transform/host_reads.py): the model
call in `probs = policy(x).numpy()` is a graph, the read stays Python. Every test
compares janus with plain Python after every call (tests/differential.py), with the
segments' graphs kept whatever they cost (`any_size`)."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.fallback import segmented
from tests.differential import assert_same


class Policy:
    def __init__(self):
        self.w = tf.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(np.float32))
        self.rng = np.random.default_rng(0)
        self.log = []

    def probs(self, x):
        h = tf.tanh(tf.matmul(x, self.w))
        return tf.nn.softmax(h * 2.0 + 0.1)


def act(s, x, steps):
    total = 0.0
    for t in range(steps):
        p = s.probs(x).numpy()[0]                     # the model call: a segment
        a = int(s.rng.choice(3, p=p / p.sum()))       # host randomness
        v = float(tf.reduce_sum(tf.square(s.probs(x * 0.5 + float(a)))))
        s.log.append(a)
        total += v
        x = x * 0.9 + 0.1
    return total, tf.reduce_mean(x)


def _moved_out_segments(jitted) -> list:
    return [seg for seg in segmented.of(jitted).all_segments()
            if any(o.startswith("janus_read") for o in seg.stretch.outputs)]


def test_a_policy_loop_with_host_reads_equals_plain_and_runs_the_reads_work_as_graphs(
        any_size):
    x = tf.constant(np.linspace(0.0, 1.0, 4, dtype=np.float32)[None])
    jitted = janus.jit(act)
    assert_same(act, [(x, 3)] * 6 + [(x * 2.0, 2)] * 3, make_state=Policy, jitted=jitted,
                observe=lambda s: s.rng.bit_generator.state)
    moved = _moved_out_segments(jitted)
    assert moved and sum(seg.jit.stats.graph_calls for seg in moved) >= 6, \
        janus.explain(jitted)


def reads_before(m, x, arr):
    y = m.probs(arr[None]).numpy()       # numpy's `None` indexing of a fed array
    z = float(tf.reduce_sum(m.probs(x * 2.0)))
    return z, y


def test_consecutive_reads_share_a_segment_and_numpy_newaxis_works(any_size):
    x, arr = tf.ones([1, 4]), np.linspace(0.0, 1.0, 4).astype(np.float32)
    jitted = janus.jit(reads_before)
    assert_same(reads_before, [(x, arr)] * 16, make_state=Policy, jitted=jitted)
    both = [seg for seg in _moved_out_segments(jitted) if len(seg.stretch.outputs) == 2]
    assert both and both[0].jit.stats.graph_calls >= 3, janus.explain(jitted)


def host_helper(x):
    return tf.constant(x.numpy() * 2.0)    # no graph can run this


def moved_out_fails(s, x):
    v = host_helper(s.probs(x)).numpy()    # the moved-out part fails to trace
    return v.sum() + 1.0


def test_a_moved_out_part_that_does_not_trace_goes_back_into_its_break(any_size):
    x = tf.ones([1, 4])
    jitted = janus.jit(moved_out_fails)
    assert_same(moved_out_fails, [(x,)] * 7, make_state=Policy, jitted=jitted)
    moved = _moved_out_segments(jitted)
    assert moved and all(seg.state == "eager" for seg in moved), janus.explain(jitted)


def raises_inside(s, x, k):
    h = s.probs(x)
    p = tf.reshape(h, [k, -1]).numpy()     # k = 2 cannot reshape 3 values: raises
    s.log.append(p.shape)
    return p


@pytest.mark.parametrize("ks", [[1, 1, 1, 1, 1, 2, 1], [1, 1, 3, 1, 1, 1, 2]])
def test_a_moved_out_part_that_raises_raises_as_in_plain_python(any_size, ks):
    x = tf.ones([1, 4])
    assert_same(raises_inside, [(x, k) for k in ks], make_state=Policy)


def test_explain_names_the_segment_of_a_moved_out_read(any_size):
    x = tf.ones([1, 4])
    jitted = janus.jit(reads_before)
    for _ in range(5):
        jitted(Policy(), x, np.ones(4, np.float32))
    text = janus.explain(jitted)
    assert "janus_read_0" in text and "break at" in text
