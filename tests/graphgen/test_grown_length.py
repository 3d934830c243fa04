"""`len()` of a list a loop over a list of varying length grows (one tf.while_loop): the
items the list had before the loop were left out, so from the loop's second iteration on
`len(grown)` was short by them (F166, fuzz v70 seed 2760016; pre-existing)."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


def appended(x, xs):
    grown = [x * 0.0]
    for v in xs:
        grown.append(v + float(len(grown)))
    return tf.reduce_sum(tf.stack(grown), 0)


def prepended(x, xs):
    grown = [x * 0.0, x]
    for v in xs:
        grown.insert(0, v * float(len(grown)))
    return tf.stack(grown)


@pytest.mark.parametrize("fn", [appended, prepended])
def test_the_length_of_a_list_grown_in_a_loop_counts_its_first_items(fn):
    calls = [(tf.constant([1.0, 2.0]), [tf.constant([1.0, 2.0]) * j for j in range(n)])
             for n in (1, 1, 2, 3, 3, 2, 4, 5)]
    stats = assert_same(fn, calls, jitted=janus.jit(fn))
    assert stats.graph_calls >= 3, stats
