"""`if not <tensor>:` (`if not tf.math.is_finite(loss): raise ...`) evaluated `not` on the
tensor in the graph: the trace failed (a symbolic tensor as a Python bool) and janus ran
the function eagerly for good. The test becomes `if <tensor>:` with the branches swapped
(transform/control_flow.py): graphs, same results as plain Python."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


class Diverged(Exception):
    pass


def finite_loss(x):
    loss = tf.reduce_sum(x * x)
    if not tf.math.is_finite(loss):
        raise Diverged("non-finite loss")
    return loss * 2.0


def doubly_negated(x):
    y = tf.reduce_sum(x)
    if not not y > 100.0:
        y = y * 0.0
    else:
        y = y + 1.0
    return y


def negated_with_elif(x):
    y = tf.reduce_sum(x)
    if not y < 100.0:
        return y * 0.0
    elif not y > -100.0:
        return y * 2.0
    return y - 1.0


@pytest.mark.parametrize("fn", [finite_loss, doubly_negated, negated_with_elif])
def test_a_negated_tensor_test_runs_as_a_graph(fn):
    calls = [(tf.constant([1.0, float(i)]),) for i in range(6)]
    stats = assert_same(fn, calls, jitted=janus.jit(fn))
    assert stats.graph_calls >= 3, stats


def test_a_negated_test_that_raises_is_still_raised():
    calls = [(tf.constant([1.0, 2.0]),)] * 3 + [(tf.constant([float("inf"), 1.0]),)] + \
        [(tf.constant([1.0, 3.0]),)] * 2
    stats = assert_same(finite_loss, calls, jitted=janus.jit(finite_loss))
    assert stats.graph_calls >= 3, stats
