"""The truth of a tensor of one element but rank >= 1 (`if x > 0:` with `x` of shape [1]):
plain Python tests its one value; janus's trace raised an error of its own (an internal
error: after three, janus gave up on the function). A tensor of more elements, or of a
number known only when the graph runs, refuses (plain Python raises or decides per call).
Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def branch(x):
    if x > 0:
        x = x * 2.0
    return x


def loop(x):
    steps = 0
    while x < 3.0 and steps < 5:
        x = x + 1.5
        steps += 1
    return x, steps


def asserted(x):
    assert x > -10.0, "too small"
    return x + 1.0


def test_one_element_tests_run_as_graphs():
    calls = [(tf.constant([[float(i % 5) - 2.0]]),) for i in range(10)]
    for fn in (branch, loop, asserted):
        stats = assert_same(fn, calls)
        assert stats.graph_calls >= 3


def test_more_elements_or_unknown_counts_are_plain_pythons():
    calls = [(tf.constant([1.0] * (1 + i % 3)),) for i in range(8)]
    for fn in (branch, asserted):
        assert_same(fn, calls)


def folded(x, y):
    return any(t > 0 for t in (x, y)), all([x > -1.0, y < 5.0])


def test_any_and_all_of_one_element_tensors():
    calls = [(tf.constant([float(i % 3) - 1.0]), tf.constant([[float(i)]])) for i in range(8)]
    stats = assert_same(folded, calls)
    assert stats.graph_calls >= 3
