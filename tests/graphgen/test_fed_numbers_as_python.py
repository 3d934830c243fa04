"""Fed Python numbers where Python code expects a number.

A fed Python int indexing a tensor (`x[i]`, `x[k:]`, `x[i, 0]`): TF's indexing takes an
int or a scalar tensor, not janus's stand-in, so the stand-in hands over its tensor
(graphgen/values.tensor_index). Before, the trace failed with TF's TypeError and janus
gave up on the function (a `range` loop that breaks on a tensor: `y = x[i]`)."""
import tensorflow as tf

from tests.differential import assert_same


def decode(x, n):
    out = []
    for i in range(n):
        y = x[i]
        if y > 100.0:
            break
        out.append(y * 2.0)
    return tf.stack(out)


def test_a_range_item_indexes_a_tensor_in_a_loop_that_breaks_on_it():
    calls = []
    for k in range(10):
        length = 6 + k % 3
        values = [1.0 + j for j in range(length)]
        values[length - 1 - k % 2] = 500.0
        calls.append((tf.constant(values), length))
    stats = assert_same(decode, calls)
    assert stats.graph_calls >= 6, stats


def window(x, k):
    return x[k:] * 2.0 + x[k] - tf.reduce_sum(x[:k + 1, 0])


def test_a_fed_int_slices_a_tensor():
    x = tf.reshape(tf.range(12.0), [6, 2])
    stats = assert_same(window, [(x, k) for k in (0, 1, 2, 3, 1, 2, 4, 0, 3)])
    assert stats.graph_calls >= 4, stats


def rounded(x, scale):
    return x * float(round(scale)) + round(scale * 2)


def test_round_of_a_fed_number_keeps_it_guarded():
    # round() of a fed float: the number stays guarded (one graph per value), not a
    # failed trace (fuzz corpus: "type SymbolicScalar doesn't define __round__")
    x = tf.constant([1.0, 2.0])
    stats = assert_same(rounded, [(x, s) for s in (0.4, 1.6, 2.5, 0.4, 1.6, 2.5, 3.5)])
    assert stats.generation_failures == 0, stats
