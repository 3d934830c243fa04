"""A graph's result that Python hands back as one of the call's own tensors through a
branch or a loop (graphgen/merge_paths.py, fallback/heap.py kind "either"): the graph
says which path it took and the host hands back that very object, so `r is x` in the
caller's code is plain Python's (F133; session 13 left it: values equal, identity not).
Each test compares `is` call by call with plain Python."""
import tensorflow as tf

import janus


def choose(x, acc):
    return x if tf.reduce_sum(acc) > 0.0 else acc * 2.0  # (a tensor test: a tf.cond)


def own_cond(x, acc):
    return tf.cond(tf.reduce_sum(acc) > 0.0, lambda: x, lambda: acc + 1.0)


def summed(h, items):
    for item in items:  # (a list whose length varies, at times empty)
        h = h + item
    return h


def _same_identities(fn, calls, at_least: int):
    jitted = janus.jit(fn)
    for args in calls:
        expected = fn(*args)
        actual = jitted(*args)
        for k, arg in enumerate(args):
            assert (actual is arg) == (expected is arg), (fn.__name__, args, k)
        tf.debugging.assert_equal(actual, expected)
    assert janus.stats(jitted).graph_calls >= at_least, janus.stats(jitted)


def test_a_conditional_expression_hands_back_the_callers_tensor():
    x = tf.constant([1.0, 2.0])
    calls = [(x, tf.constant([(-1.0) ** i, 0.5 * i])) for i in range(10)]
    _same_identities(choose, calls, 4)


def test_the_users_tf_cond_hands_back_the_callers_tensor():
    x = tf.constant([3.0, -1.0])
    calls = [(x, tf.constant([(-1.0) ** i, 0.25])) for i in range(10)]
    _same_identities(own_cond, calls, 4)


def test_a_loop_that_runs_no_iteration_hands_back_its_initial_tensor():
    h = tf.constant([0.5, 0.5])
    calls = [(h, [tf.constant([1.0 * j, 2.0]) for j in range(i % 4)]) for i in range(12)]
    _same_identities(summed, calls, 4)
