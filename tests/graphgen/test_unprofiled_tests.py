"""A trace that reaches a tensor-valued test no profiled call reached (a search loop that
returns early ran further, a mode first seen after profiling) runs that call profiled
and traces again on the next (errors.Unprofiled); janus gave up on the whole function at
the first such trace (zoo p67: its `train` calls ran eagerly because an `eval` helper's
loop went further than profiled). Every test compares janus with plain Python call by
call."""
import tensorflow as tf

from tests.differential import assert_same


def first_above(conf, threshold):
    for i in range(3):
        for j in range(3):
            if i != j and conf[i, j] > threshold:
                return (i, j), conf[i, j]
    return None, tf.reduce_max(conf)


def run(mode, x, threshold):
    if mode == "train":
        return tf.reduce_sum(x * 2.0), None
    pair, worst = first_above(x, threshold)
    return worst, pair


def test_a_test_first_reached_after_profiling_is_profiled_then_traced():
    base = tf.reshape(tf.range(9, dtype=tf.float32), [3, 3]) / 10.0
    calls = [("eval" if i % 3 == 2 else "train", base * (1.0 + 0.1 * i), 0.45 - 0.02 * (i % 4))
             for i in range(16)]
    stats = assert_same(run, calls)
    assert stats.graph_calls >= 8 and stats.generation_failures == 0, stats
