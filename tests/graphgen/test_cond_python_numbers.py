"""A generalized tensor `if` whose branches both turn a Python number (or None) into a
tensor (`total = 0.0` ... `total += e * e` in both): after the `if` the value is a tensor
on either path, in Python too, so the `if` becomes a tf.cond carrying it. Where only one
path makes it a tensor (or another Python value), janus refuses and the calls run as
plain Python would. Compared with plain Python on the same inputs."""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


def _inputs(n=10):
    return [(tf.constant(np.random.RandomState(i).randn(4).astype(np.float32) *
                         (1 + i % 3)),) for i in range(n)]


def huber(x):
    total = 0.0
    for k in range(x.shape[0]):
        e = x[k]
        if tf.abs(e) < 1.0:
            total += 0.5 * e * e
        else:
            total += tf.abs(e) - 0.5
    return total / x.shape[0]


def test_a_float_both_branches_make_a_tensor_runs_as_one_graph():
    stats = assert_same(huber, _inputs(12))
    assert stats.graph_calls >= 8 and stats.generations <= 2, stats


def one_branch(x):
    total = 0.0
    for k in range(x.shape[0]):
        if x[k] > 0.0:
            total += x[k]
    return total


def test_a_float_only_one_branch_changes_stays_python_on_the_other_path():
    # (all elements <= 0 on some calls: plain Python returns the float 0.0 there)
    calls = _inputs(6) + [(tf.constant([-1.0, -2.0, -0.5, -3.0]),)] + _inputs(4)
    assert_same(one_branch, calls)


def python_number_other_branch(x):
    scale = 1.0
    if tf.reduce_sum(x) > 0.0:
        scale = tf.reduce_max(x)
    else:
        scale = 2.0
    return x * scale, scale


def test_a_tensor_on_one_path_and_a_python_float_on_the_other_matches_python():
    assert_same(python_number_other_branch, _inputs(10))


def unchanged_on_both(x):
    count = 3
    y = x
    if tf.reduce_sum(x) > 0.0:
        y = x * 2.0
        count = 3
    else:
        y = x - 1.0
        count = 3
    return y, count, [0] * count


def test_a_number_both_branches_leave_as_it_was_stays_python():
    stats = assert_same(unchanged_on_both, _inputs(10))
    assert stats.graph_calls >= 6, stats


def from_none(x):
    best = None
    if tf.reduce_mean(x) > 0.0:
        best = tf.reduce_max(x)
    else:
        best = tf.reduce_min(x)
    return best * 2.0


def test_none_made_a_tensor_by_both_branches():
    stats = assert_same(from_none, _inputs(10))
    assert stats.graph_calls >= 6, stats


def changes_python_int(x):
    n = 0
    if tf.reduce_sum(x) > 0.0:
        n += 1
    else:
        n += 2
    return x * float(n), n


def test_a_python_int_both_branches_change_keeps_python_semantics():
    assert_same(changes_python_int, _inputs(10))
