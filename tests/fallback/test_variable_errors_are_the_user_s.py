"""A variable update that fails in the user's own code (`v.assign_add(t)` with `t` of
another dtype) raises the user's error, not a janus internal error, where the call runs
split at its graph breaks (the mixed runtime): rng11-F80, generator v33 seed 11."""
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.errors import JanusInternalError

V = tf.Variable(tf.zeros([]))


def adds(x, n):
    acc = x * 0.5
    c = np.int64(n) + 1  # a graph break: the call runs split
    V.assign_add(tf.reduce_sum(acc))
    return acc * float(c)


def test_a_failing_assign_add_raises_the_user_s_error(monkeypatch):
    monkeypatch.setattr(janus.config, "raise_internal_errors", True)
    jitted = janus.jit(adds)
    for dtype in ["float32"] * 4 + ["float64"] * 3:
        x = tf.constant([0.1, 0.2, 0.3], dtype)
        before = V.numpy()
        try:
            expected = adds(x, 0)
        except ValueError as exc:
            plain = exc
            V.assign(before)
            with pytest.raises(ValueError) as raised:  # (not a JanusInternalError)
                jitted(x, 0)
            assert not isinstance(raised.value, JanusInternalError)
            assert str(raised.value) == str(plain)
        else:
            V.assign(before)
            np.testing.assert_allclose(jitted(x, 0).numpy(), expected.numpy())
        assert janus.stats(jitted).internal_errors == 0
