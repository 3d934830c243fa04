"""Class: a nested def or lambda handed to a TensorFlow op that traces it (`tf.map_fn`,
`scan`, `foldl`, `while_loop`, `cond`, `vectorized_map`) inside a loop body or branch,
reading module globals and enclosing locals, runs as in plain Python: while janus
profiles, traces a graph, runs the graph and after a guard fails (fuzz finding F12).

The def's code object, made by janus's converted loop body, carried the loop's line:
converting it when TF called it found the enclosing function's (or an earlier nested
def's) source, so the callback ran the wrong code: `NameError` for a free name taken as
a global, `TypeError` for the other signature, or endless recursion; or janus gave up
on the function (a `TypeError` while tracing) and ran it eagerly for good.
"""
import pytest
import tensorflow as tf

from tests.differential import assert_same

G_SCALE = 1.5
G_SHIFT = tf.constant(0.25)


def c(values):
    return tf.constant(values, tf.float32)


def map_fn_in_for(x, n):
    acc = x * 0.5

    def earlier(z):  # the nearest def above the loop: what janus used to convert
        return z * 0.5 + acc
    for _ in range(n):
        def cb(e):
            return e * 0.5 + G_SCALE
        acc = tf.reshape(tf.map_fn(cb, tf.reshape(acc, [-1])), tf.shape(acc))
    return earlier(acc)


def map_fn_in_while(x, n):
    acc = x * 0.5
    j = 0
    while j < n:
        j += 1

        def cb(e):
            return e * 0.5 + G_SCALE + tf.reduce_sum(acc) * 0.0 + G_SHIFT
        acc = tf.map_fn(cb, acc)
    return acc


def scan_foldl_in_if(x, flag):
    acc = x
    if flag:
        def step(a, e):
            return a + e * G_SCALE
        acc = tf.scan(step, acc)
    else:
        def fold(a, e):
            return a * 0.5 + e - G_SCALE
        acc = tf.foldl(fold, acc) + acc
    return acc


def while_loop_and_cond_in_for(x, n):
    acc = x
    for k in range(n):
        limit = k + 2

        def cond(i, v):
            return i < limit

        def body(i, v):
            return i + 1, v * 0.5 + G_SCALE

        def big():
            return acc * G_SCALE

        def small():
            return acc - G_SHIFT
        _, acc = tf.while_loop(cond, body, (tf.constant(0), acc))
        acc = tf.cond(tf.reduce_sum(acc) > 3.0, big, small)
    return acc


def lambdas_in_for(x, n):
    acc = x
    for k in range(n):
        acc = tf.map_fn(lambda e: e * G_SCALE + k, acc)
        acc = tf.vectorized_map(lambda e: e - G_SHIFT, acc)
    return acc


def nested_def_in_nested_loops(x, n):
    acc = x
    for i in range(n):
        for j in range(2):
            def cb(e):
                return e * 0.5 + G_SCALE * i + j
            acc = tf.map_fn(cb, acc)
    return acc


CASES = {
    "map_fn_in_for": (map_fn_in_for, lambda v, n: (c(v), n)),
    "map_fn_in_while": (map_fn_in_while, lambda v, n: (c(v), n)),
    "scan_foldl_in_if": (scan_foldl_in_if, lambda v, n: (c(v), n % 2 == 1)),
    "while_loop_and_cond_in_for": (while_loop_and_cond_in_for, lambda v, n: (c(v), n)),
    "lambdas_in_for": (lambdas_in_for, lambda v, n: (c(v), n)),
    "nested_def_in_nested_loops": (nested_def_in_nested_loops, lambda v, n: (c(v), n)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_callback_defined_in_a_block_runs_as_in_plain_python(name):
    fn, args = CASES[name]
    calls = [args([1.0, 2.0, 3.0], 1)] * 4 + [args([0.5, -1.0, 2.0], 1)] * 2 + \
        [args([1.0, 2.0], 2)] * 2 + [args([3.0, 1.0, 0.5], 1)]
    stats = assert_same(fn, calls)
    # the callbacks ran in graphs janus traced (they used to make janus give up or fail)
    assert stats.graph_calls >= 4, stats
