"""Differential tests around profiling: the profiled calls, and values whose types,
dtypes and shapes change from call to call (what the profile saw vs. what comes)."""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


def c(value, dtype=tf.float32):
    return tf.constant(value, dtype)


def affine(x, w):
    return tf.nn.relu(x @ w) + tf.reduce_sum(x, axis=-1, keepdims=True)


W = np.array([[1.0, -1.0, 0.5], [0.5, 2.0, -0.5]], np.float32)


def test_profiled_calls_then_graph_calls():
    calls = [(c([[float(i), 1.0]]), c(W)) for i in range(6)]
    stats = assert_same(affine, calls, profile_calls=2)
    assert stats.profile_calls == 2
    assert stats.graph_calls == 4
    assert stats.fallback_calls == 0


def test_single_profiled_call():
    calls = [(c([[float(i), 1.0]]), c(W)) for i in range(4)]
    stats = assert_same(affine, calls, profile_calls=1)
    assert stats.profile_calls == 1
    assert stats.graph_calls == 3


# -- dynamic types ---------------------------------------------------------------------------

def typed(x, k):
    y = x * 2 + 1
    return y, y.dtype.name, k * 2, k / 2, k // 2, type(k).__name__


def test_float32_then_float64_tensors():
    calls = [(c([1.5, float(i)]), 3) for i in range(3)] + \
            [(c([1.5, float(i)], tf.float64), 3) for i in range(3)] + \
            [(c([2.5, 1.0]), 3), (c([2.5, 1.0], tf.float64), 3)]
    stats = assert_same(typed, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def test_python_ints_then_floats():
    calls = [(c([1.0, 2.0]), 3), (c([1.0, 2.0]), 3), (c([2.0, 2.0]), 3),
             (c([1.0, 2.0]), 3.0), (c([1.0, 2.0]), 3.0), (c([1.0, 2.0]), 3.0),
             (c([1.0, 2.0]), 3), (c([1.0, 2.0]), True)]
    stats = assert_same(typed, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def seq_sum(seq, extra):
    total = tf.zeros([2])
    for s in seq:
        total = total + s
    both = seq + seq
    return total, len(seq), type(seq).__name__, len(both), extra


def test_list_then_tuple():
    lst = [c([1.0, 2.0]), c([3.0, 4.0])]
    tup = (c([1.0, 2.0]), c([3.0, 4.0]))
    calls = [(lst, 1), (lst, 1), (lst, 1), (tup, 1), (tup, 1), (tup, 1), (lst, 1)]
    stats = assert_same(seq_sum, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def shapes(x):
    y = tf.reduce_sum(x * x, axis=-1)
    n = tf.shape(x)[0]
    return y, n, tf.reduce_mean(x, axis=0)


def test_changing_shapes_across_calls():
    rng = np.random.default_rng(0)
    sizes = [2, 3, 4, 1, 5, 3, 2]
    calls = [(c(rng.normal(size=(n, 3)).astype(np.float32)),) for n in sizes]
    stats = assert_same(shapes, calls, profile_calls=2)
    assert stats.graph_calls >= 4
    assert stats.generations <= 3


def test_shape_changes_only_after_profiling():
    rng = np.random.default_rng(1)
    sizes = [2, 2, 2, 3, 4, 5, 6, 7, 3]
    calls = [(c(rng.normal(size=(n, 3)).astype(np.float32)),) for n in sizes]
    stats = assert_same(shapes, calls, profile_calls=2)
    # after the first dimension failed twice it becomes dynamic: the last calls run as graph
    assert stats.graph_calls >= 5
    assert stats.generations <= 4


def rank_changes(x):
    return tf.reduce_sum(x) + tf.cast(tf.rank(x), tf.float32), len(x.shape)


def test_rank_changes_across_calls():
    calls = [(c([1.0, 2.0]),), (c([3.0, 2.0]),), (c([1.0, 1.0]),), (c([[1.0], [2.0]]),),
             (c([[1.0, 2.0, 3.0]]),), (c(4.0),), (c([5.0, 6.0]),)]
    assert_same(rank_changes, calls, profile_calls=2)


# -- branch outcomes seen while profiling ----------------------------------------------------

def sign_branch(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2.0
    else:
        y = x - 10.0
    return y


def test_tensor_branch_that_varied_while_profiling_becomes_cond():
    values = [1.0, -1.0, 2.0, -3.0, 4.0, -5.0, 0.5]
    calls = [(c([v, v]),) for v in values]
    stats = assert_same(sign_branch, calls, profile_calls=2)
    assert stats.graph_calls == len(values) - 2
    assert stats.fallback_calls == 0
