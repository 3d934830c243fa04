"""Draws from TensorFlow's global random stream (graphgen/random_draws.py): a graph's
stateful random ops do not draw eager's numbers, so a seeded draw runs plainly, and an
unseeded one's graph runs only while the process has no global seed."""
import numpy as np
import tensorflow as tf

import janus


def _sequence(fn, x, calls: int = 8):
    """fn(x) over `calls` calls after `tf.random.set_seed(0)`, as numpy arrays."""
    tf.random.set_seed(0)
    try:
        return [np.array(fn(x)) for _ in range(calls)]
    finally:
        tf.random.set_seed(None)


def _assert_same(fn, x):
    expected = _sequence(fn, x)
    jitted = janus.jit(fn)
    actual = _sequence(jitted, x)
    for i, (e, a) in enumerate(zip(expected, actual)):
        np.testing.assert_allclose(a, e, rtol=1e-6, err_msg=f"call {i} ({janus.stats(jitted)})")
    return janus.stats(jitted)


def test_reparameterization_draws_eagers_numbers_under_a_global_seed():
    def reparameterize(mean):
        eps = tf.random.normal(shape=tf.shape(mean))
        return eps * tf.exp(mean * 0.5) + mean
    _assert_same(reparameterize, tf.constant([[0.1, -0.2, 0.3]]))


def test_dropout_and_an_op_seed_draw_eagers_numbers():
    def noisy(x):
        return tf.nn.dropout(x, 0.5) + tf.random.uniform(tf.shape(x), seed=3)
    _assert_same(noisy, tf.ones([4]))


def test_unseeded_draws_run_as_graphs_until_a_seed_is_set():
    def noise(x):
        return x + tf.random.normal(tf.shape(x)) * 0.0
    jitted = janus.jit(noise)
    x = tf.ones([3])
    for _ in range(6):
        np.testing.assert_allclose(jitted(x), x)
    assert janus.stats(jitted).graph_calls >= 3
    before = janus.stats(jitted).graph_calls
    actual = _sequence(lambda x: jitted(x) + tf.random.normal([1]), x, 4)
    expected = _sequence(lambda x: noise(x) + tf.random.normal([1]), x, 4)
    for e, a in zip(expected, actual):
        np.testing.assert_allclose(a, e, rtol=1e-6)
    assert janus.stats(jitted).graph_calls == before  # the seeded calls ran plainly
