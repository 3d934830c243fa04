"""`min(a, b)` / `max(a, b)` of a scalar tensor and a number (`best = min(best, loss)`,
`min(loss, cap)`): Python compares `b < a` (`b > a`) and returns one of the two, a tensor
or the number by the value. Before, the trace asked the symbolic comparison's truth and
failed, and janus ran the whole function eagerly from then on; now the comparison is a
conditional expression's test (transform/bool_values.py): a guard per outcome, or a
`tf.cond` when the outcome varies. Every test compares janus with plain Python."""
import numpy as np
import pytest
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.best = float("inf")
        self.w = tf.Variable([[1.0], [0.5], [-0.5]])


def c(values):
    return tf.constant(np.asarray(values, np.float32))


def capped(s, x, cap):
    loss = tf.reduce_mean(tf.square(x @ s.w))
    return min(loss, cap), max(cap, loss), max(loss, 0.0)


def running_best(s, x):
    loss = tf.reduce_mean(tf.square(x @ s.w))
    s.best = min(s.best, loss)
    s.w.assign_sub(0.01 * s.w)
    return s.best


def test_min_and_max_of_a_tensor_and_a_number_run_as_graphs(any_size):
    rng = np.random.RandomState(0)
    calls = [(c(rng.randn(4, 3) * (0.3 if i % 5 else 3.0)), 1.0) for i in range(14)]
    stats = assert_same(capped, calls, make_state=State)
    assert stats.graph_calls >= 8, stats


def test_a_running_best_kept_with_min_runs_as_graphs(any_size):
    rng = np.random.RandomState(1)
    calls = [(c(rng.randn(4, 3) * (1.0 + 0.5 * (i % 3))),) for i in range(14)]
    stats = assert_same(running_best, calls, make_state=State)
    assert stats.graph_calls >= 8, stats


def shadowed_min(values, limit):
    min = lambda a, b: [a, b]  # noqa: A001,E731 (a `min` of the program's own: called as it is)
    return min(values, limit)


def test_a_min_of_the_programs_own_is_called_as_it_is():
    calls = [(c([1.0, 2.0]), 3.0)] * 4
    assert_same(shadowed_min, calls)


def max_(a, b):
    return max(a, b)


@pytest.mark.parametrize("b", [c([1.0, 2.0]), "text"])
def test_what_python_raises_for_uncomparable_operands_is_raised(b):
    assert_same(max_, [(c([0.5, 3.0]), b)] * 3 + [(1.0, b)] * 2)


def worst_of(s, xs):
    losses = [tf.reduce_mean(tf.square(x @ s.w)) for x in xs]
    s.w.assign_sub(0.01 * s.w)
    return max(losses), min(losses[0], losses[1], 0.75)


def test_max_of_a_list_of_tensors_and_min_of_three_run_as_graphs(any_size):
    rng = np.random.RandomState(2)
    calls = [([c(rng.randn(2, 3) * (1.0 + 0.5 * (i % 3))) for _ in range(3)],)
             for i in range(14)]
    stats = assert_same(worst_of, calls, make_state=State)
    assert stats.graph_calls >= 8, stats


def extremes(xs, pairs):
    return max(xs), min(x * 2 for x in xs), max(pairs, default=None), min(*xs)


@pytest.mark.parametrize("xs", [[3.0, 1.0, 2.0], (1, 5, 5), [c(1.0), c(0.5)]])
def test_folds_python_leaves_to_the_builtin_stay_its_own(xs):
    assert_same(extremes, [(xs, [])] * 4)


def test_an_empty_list_raises_as_python():
    assert_same(lambda xs: max(xs), [([],)] * 3 + [([c(1.0)],)] * 2)
