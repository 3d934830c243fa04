"""Sizes that vary per call as fed ints (graphgen/dynamic_sizes.py): an unknown dimension
read from `x.shape`, and a `range` of either, give one graph with a tf.while_loop where
janus made a graph per size (seq2seq in the zoo: a generation of ~1 s for every new
pair of lengths). Each test compares janus with plain Python call by call."""
import math

import numpy as np
import tensorflow as tf

from tests.differential import assert_same

W = tf.constant(np.random.RandomState(0).randn(3, 4) * 0.5, tf.float32)
U = tf.constant(np.random.RandomState(1).randn(4, 4) * 0.5, tf.float32)


def rnn_over_time(x):
    batch, length, _ = x.shape
    state = [tf.zeros([batch, 4])]
    total = 0.0
    for t in range(x.shape[1]):
        h = tf.tanh(x[:, t] @ W + state[0] @ U)
        state = [h]  # a new list each step (a Keras cell's state)
        total += tf.reduce_mean(h)
    return state[0], total / int(length)


def _sequences(lengths, batch=2):
    rng = np.random.RandomState(3)
    return [(tf.constant(rng.randn(batch, n, 3), tf.float32),) for n in lengths]


def test_a_loop_over_a_dimension_that_varies_is_one_graph():
    stats = assert_same(rnn_over_time, _sequences([3, 4, 5, 2, 6, 7, 3, 8, 9, 4]))
    assert stats.generations <= 2 and stats.generation_failures == 0
    assert stats.graph_calls >= 6


def test_an_empty_range_reruns_plainly():
    calls = _sequences([3, 4, 5, 0, 2, 0, 6])
    assert_same(rnn_over_time, calls)


def decide_on_length(x):
    if x.shape[1] > 3:  # a Python decision on the size: it stays specialized
        return tf.reduce_sum(x)
    return tf.reduce_mean(x)


def test_a_decision_on_a_varying_dimension_still_specializes():
    stats = assert_same(decide_on_length, _sequences([2, 3, 4, 5, 2, 4, 5, 3]))
    assert stats.graph_calls >= 3


def aliased_state(x):
    state = [tf.zeros([2, 4])]
    for t in range(x.shape[1]):
        state = [tf.tanh(x[:, t] @ W + state[0] @ U)]
        previous = state  # two names, one list
    previous.append(1.0)
    return len(state), state[0]


def test_two_names_of_one_list_in_the_loop_stay_one_list():
    assert_same(aliased_state, _sequences([3, 4, 5, 2, 6, 3]))


def counted(x, n, step):
    acc = tf.zeros([3])
    for i in range(1, n, step):
        acc = acc * 0.5 + x[i]
    return acc, len(range(n)), isinstance(range(n), range)


def test_a_range_of_a_fed_count_with_a_start_and_a_step():
    x = tf.constant(np.random.RandomState(4).randn(12, 3), tf.float32)
    stats = assert_same(counted, [(x, n, 2) for n in (4, 5, 6, 9, 11, 3, 8, 12, 7)])
    assert stats.graph_calls >= 4


def decides_on_the_item(x, n):
    out = []
    for t in range(n):
        if t % 2 == 0:  # each iteration decides on its own number
            out.append(t)
            x = tf.tanh(x)
        else:
            x = x * 0.5
    return x, out


def test_a_decision_on_the_item_keeps_the_count_guarded():
    x = tf.constant([0.5, -1.0])
    stats = assert_same(decides_on_the_item, [(x, n) for n in (3, 3, 3, 4, 4, 4, 3, 4, 5)])
    assert stats.graph_calls >= 4
    assert stats.generation_failures == 0


V = tf.Variable(0.25)  # (its handle: an eager tensor the graph captures)


def halves_in_a_loop(x, n):
    for _ in range(n + 3):
        x = x * 0.7 + V
        w = tf.reduce_sum(x) * 4.0
        while w > 1.0:  # a test of data read from the variable, not of the item
            w = w * 0.5
    return x, w


def test_a_test_in_the_loop_reading_a_captured_variable():
    """Fuzz v59 seed 2110135: walking back from such a test reached the variable's eager
    handle (janus internal error: `Tensor.op is undefined when eager execution is
    enabled`)."""
    x = tf.constant([0.5, -1.0])
    assert_same(halves_in_a_loop, [(x, n) for n in (3, 3, 3, 3, 0, 2, 4, 1)])


def sliced_range(x, n):
    acc = x
    for i in range(n)[1:]:  # a range too
        acc = acc * 0.5 + x[i]
    return acc, len(range(n)[::2])


def test_a_slice_of_a_range_of_a_fed_count():
    """`range(n)[1:]` of a fed `n` made a SymbolicRange with the wrong arguments (a janus
    internal error, found reading the change over)."""
    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    stats = assert_same(sliced_range, [(x, n) for n in (2, 3, 4, 5, 3, 2, 4)])
    assert stats.graph_calls >= 3


def _rounded_count(count):
    def sums(x, k):
        total = tf.constant(0.0)
        for i in range(count(x.shape[0], k)):
            total = total + tf.reduce_sum(x[2 * i:2 * i + 2])
        return total
    return sums


def test_f370_a_range_of_a_rounded_size_stays_one_graph():
    # (the float of a dimension keeps its bound through `/`, `*` by a constant and the
    # rounding: before, a range past 2**62 refused each general graph, a graph per size)
    counts = [lambda n, k: math.ceil(n / 2), lambda n, k: math.floor(n / 2),
              lambda n, k: int(n * 0.5), lambda n, k: round(n / 2),
              lambda n, k: math.trunc(n / 2.5) + 1, lambda n, k: -math.floor(-n / 2),
              lambda n, k: math.ceil(abs(n - 0.5) / 2), lambda n, k: math.ceil(n / k)]
    rng = np.random.RandomState(5)
    calls = [(tf.constant(rng.randn(3 + i % 7), tf.float32), 2 + i % 3) for i in range(16)]
    for count in counts:
        stats = assert_same(_rounded_count(count), calls)
        assert stats.generations <= 2 and stats.generation_failures == 0, stats
        assert stats.graph_calls + stats.plain_calls >= 10, stats
