"""`any(...)`/`all(...)` over tensor tests (graphgen/truth_folds.py): Python's builtins
ask each item's truth in C, which a symbolic tensor refuses, and janus gave up on the
whole function. Every test compares janus with plain Python call by call."""
import pytest
import tensorflow as tf

from tests.differential import assert_same


class Counter:
    def __init__(self):
        self.ok = 0
        self.seen = []


def all_finite(s, x):
    if all(tf.reduce_all(tf.math.is_finite(t)) for t in [x, x * 2.0]):
        s.ok += 1
    return x * 2.0


def any_large(s, x, flag):
    if any([flag, tf.norm(x) > 1.0, tf.reduce_min(x) < -1.0]):
        s.ok += 1
    return x


def _xs(n=10):
    return [tf.constant([0.3 * i, float("nan") if i == 5 else 0.0]) for i in range(n)]


def test_all_over_tensor_tests_runs_as_graphs():
    stats = assert_same(all_finite, [lambda s, x=x: (s, x) for x in _xs()], make_state=Counter)
    assert stats.graph_calls >= 4, stats


def test_any_with_python_and_tensor_items():
    calls = [lambda s, x=x, i=i: (s, x * (1 if i % 3 else -2), i == 4)
             for i, x in enumerate(_xs())]
    assert_same(any_large, calls, make_state=Counter)


def logged(s, t):
    s.seen.append(float(s.ok))
    return tf.reduce_sum(t) > 0


def with_effects(s, x):
    if all(logged(s, t) for t in [x, -x, x * 2.0]):  # (Python stops at the first False)
        s.ok += 1
    return x


def test_items_after_a_tensor_item_that_write_the_heap_stay_python():
    assert_same(with_effects, [lambda s, x=x: (s, x) for x in _xs()], make_state=Counter)


def ambiguous(x):
    return all([x > 0])


@pytest.mark.parametrize("fn, calls", [
    (ambiguous, [(tf.constant([1.0, 2.0]),)] * 4),
    (lambda x: (all([]), any(()), all(v > 0 for v in [x[0]])), [(tf.constant([1.0]),)] * 4),
])
def test_edge_cases_as_python_has_them(fn, calls):
    assert_same(fn, calls)
