"""A loop with two `if <test>: break` (and nothing else leaving it) is one tf.while_loop
that stops at the first test that says so, with the state there (graphgen/exits.py);
every test compares janus with plain Python call by call, the loops exiting by either
test, at different iterations, never, and at once."""
import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.graphgen.test_exit_compound import one_while_loop

END = 3


def greedy(h, k):
    out = []
    for t in range(10):
        h = tf.tanh(h * 1.7 + 0.3)
        tok = tf.argmax(h, output_type=tf.int32)
        if tok == END:
            break
        out.append(tok)
        if len(out) >= k:
            break
        h = h + tf.one_hot(tok, 5) * 0.5
    return out, h


def _h(*row):
    return tf.constant(row, tf.float32)


CALLS = [(_h(0.1, 0.5, 0.2, 0.0, 0.3), 4), (_h(1.0, 0.0, 0.0, 0.0, 0.0), 2),
         (_h(0.0, 0.0, 0.0, 2.0, 0.0), 6), (_h(0.3, 0.1, 0.9, 0.0, -1.0), 9),
         (_h(0.1, 0.5, 0.2, 0.0, 0.3), 0), (_h(-1.0, 0.2, 0.1, 0.4, 0.0), 3),
         (_h(0.0, 0.0, 1.0, 0.0, 0.0), 10), (_h(0.5, 0.4, 0.3, 0.2, 0.1), 1)]


def test_stop_on_a_token_or_on_a_length():
    assert_same(greedy, CALLS)
    one_while_loop(greedy, CALLS)


def carried_to_each_exit(x, n):
    h = x
    seen = []
    for t in range(n):
        h = h * 1.5 + 0.1
        if tf.reduce_sum(h) > 4.0:
            break
        h = h - 0.2  # (the state at the second test is not the state at the first)
        if tf.reduce_min(h) < -1.0:
            break
        h = h * 0.9
        seen.append(h)  # (counted only in iterations that passed both tests)
    return h, seen


def test_each_exit_keeps_the_state_it_saw():
    calls = [(tf.constant([a, b]), n) for a, b, n in
             ((0.1, 0.1, 8), (1.5, 0.5, 8), (-2.0, 0.5, 8), (0.1, 0.1, 0), (3.0, 0.0, 5),
              (-0.5, -0.4, 6), (0.2, 0.0, 2))]
    assert_same(carried_to_each_exit, calls)
    one_while_loop(carried_to_each_exit, calls)


def while_with_two_exits(x):
    t = tf.constant(0)
    steps = []
    while t < 8:
        t = t + 1
        x = tf.sin(x) * 2.0
        if tf.reduce_max(x) > 1.9:
            break
        steps.append(tf.reduce_sum(x))
        if tf.reduce_min(x) < -1.5 or t > 5:
            break
    return x, steps, t


def test_a_while_with_two_exits_one_of_them_compound():
    calls = [(tf.constant([v]),) for v in (0.1, 1.2, -0.9, 2.5, 0.05, -0.2, 0.9)]
    assert_same(while_with_two_exits, calls)
    one_while_loop(while_with_two_exits, calls)


def printing_between(x, n):
    for t in range(n):
        x = x + 1.0
        if tf.reduce_sum(x) > 3.0:
            break
        print("step", t)
        if tf.reduce_sum(x) < -3.0:
            break
    return x


def test_effects_between_the_exits_keep_the_loop_unrolled_with_a_reason():
    calls = [(tf.constant([v]), n) for v, n in ((0.0, 5), (2.5, 5), (-9.0, 5), (0.5, 0), (1.0, 3))]
    assert_same(printing_between, calls)
    jitted = janus.jit(printing_between)
    for call in calls:
        jitted(*call)
    assert "side effects" in janus.explain(jitted)
