"""A loop's exit test made of `and`/`or`/`not` over tensor and Python parts still becomes one
tf.while_loop (transform/exit_tests.py, graphgen/exits.py), with Python's short-circuit:
an operand runs only where Python would run it. Every test compares janus with plain
Python call by call; the loops exit at different iterations, never, and at once."""
import tensorflow as tf

import janus
from tests.differential import assert_same


def one_while_loop(fn, calls) -> None:
    """`fn` jitted over `calls` ends with a graph built on a generalized plan (the loop
    is one tf.while_loop, not unrolled)."""
    jitted = janus.jit(fn)
    for call in calls:
        jitted(*call)
    assert any(spec.plan.general_branches for spec in jitted.specializations), \
        janus.explain(jitted)
    assert not jitted.last_failure_reason, jitted.last_failure_reason


def decode_or_limit(x, k):
    out = []
    h = x
    for t in range(8):
        h = h * 1.3 + 0.2
        tok = tf.reduce_sum(h)
        if tok > 6.0 or len(out) >= k:
            break
        out.append(h)
    return out, h


LIMITS = [(tf.constant([v]), k) for v, k in
          ((0.1, 5), (1.0, 5), (0.5, 2), (2.0, 6), (0.3, 8), (0.2, 3), (0.1, 0), (9.0, 4),
           (-9.0, 8), (-9.0, 3), (0.4, 1))]


def test_or_of_a_tensor_and_a_python_length():
    # exits by the token (several iterations, at once), by the length (0: at once), never
    stats = assert_same(decode_or_limit, LIMITS)
    assert stats.graph_calls + stats.plain_calls >= 6
    one_while_loop(decode_or_limit, LIMITS)


def until_not_going(x, n):
    h = x
    steps = []
    for t in range(n):
        h = tf.sin(h) + 0.8
        keep_going = tf.reduce_max(h) < 1.6
        if not keep_going:
            break
        steps.append(tf.reduce_sum(h))
    return h, steps


NOT_CALLS = [(tf.constant([v, 0.0]), n) for v, n in
             ((0.0, 6), (1.0, 6), (-2.0, 9), (5.0, 4), (0.3, 0), (-1.0, 3), (0.9, 7))]


def test_not_of_a_tensor():
    assert_same(until_not_going, NOT_CALLS)
    one_while_loop(until_not_going, NOT_CALLS)


def python_flag_and_tensor(x, use_stop, n):
    h = x
    for t in range(n):
        h = h * 1.5 + 0.1
        if use_stop and tf.reduce_sum(h) > 3.0:
            break
    return h


def test_a_python_flag_decided_at_trace_time():
    calls = [(tf.constant([v]), flag, 5) for v, flag in
             ((0.1, True), (1.0, True), (0.1, False), (3.5, True), (2.0, False), (0.5, True),
              (0.02, True))]
    assert_same(python_flag_and_tensor, calls)
    one_while_loop(python_flag_and_tensor, calls)


def nested_tests(x, k):
    h = x
    out = []
    for t in range(7):
        h = h * 1.2 - 0.1
        big = tf.reduce_max(h) > 2.0
        if big or (len(out) >= k and not tf.reduce_min(h) < -1.0):
            break
        out.append(h)
    return h, out


def test_nested_and_or_not():
    calls = [(tf.constant([a, b]), k) for a, b, k in
             ((0.5, 0.1, 9), (1.9, 0.0, 9), (0.5, -3.0, 2), (0.5, 0.1, 2), (3.0, 0.0, 0),
              (-4.0, -5.0, 1), (0.9, -0.9, 3))]
    assert_same(nested_tests, calls)
    one_while_loop(nested_tests, calls)


def two_tensors(x, n):
    h = x
    for t in range(n):
        h = h * 1.4
        if tf.reduce_max(h) > 4.0 or tf.reduce_min(h) < -4.0:
            break
        h = h + 0.05
    return h


def test_or_of_two_tensors():
    calls = [(tf.constant([a, b]), 6) for a, b in
             ((0.5, 0.1), (-0.5, 0.1), (5.0, 0.0), (0.0, -5.0), (0.01, 0.01), (1.0, -1.0))]
    assert_same(two_tensors, calls + [(tf.constant([1.0, 0.0]), 0)])
    one_while_loop(two_tensors, calls)


def index_when_needed(x, vals):
    h = x
    for t in range(6):
        h = h * 2.0
        if tf.reduce_sum(h) > 3.0 or vals[t] > 0.5:
            break
    return h


def test_an_operand_python_would_not_run_does_not_run():
    # `vals[t]` is out of range where Python stops on the tensor first: no IndexError then
    calls = [(tf.constant([v]), vals) for v, vals in
             ((1.0, [0.0, 0.0]), (0.1, [0.0] * 6), (0.1, [0.0, 0.0, 1.0]), (0.5, [0.0] * 3),
              (0.01, [0.0] * 4), (2.0, [0.0]), (0.3, [0.0, 0.0]))]
    assert_same(index_when_needed, calls)


def gather_when_needed(x, vals):
    h = x
    for t in range(6):
        h = h * 2.0
        if tf.reduce_sum(h) > 3.0 or tf.gather(vals, t) > 0.5:
            break
    return h


def test_a_tensor_operand_python_would_not_read_is_not_read_in_the_graph():
    # at t == 3, `vals[3]` is past the end of `vals`: Python stops on the tensor first, and
    # in the graph the index is read only in the branch of the `or` that needs it
    calls = [(tf.constant([v]), tf.constant(vals)) for v, vals in
             ((0.5, [0.0] * 3), (1.0, [0.0] * 3), (0.3, [0.0] * 3), (2.0, [0.0] * 3),
              (0.1, [0.0, 1.0, 0.0]), (0.1, [1.0, 0.0, 0.0]), (0.4, [0.0] * 3),
              (0.3, [0.0] * 3))]
    assert_same(gather_when_needed, calls)
    one_while_loop(gather_when_needed, calls)


class Box:
    def __init__(self):
        self.asked = 0

    def more(self, t):
        self.asked += 1
        return t >= 4


def effect_in_an_operand(box, x):
    h = x
    for t in range(6):
        h = h * 1.5
        if tf.reduce_sum(h) > 2.0 or box.more(t):
            break
    return h


def loud(t):
    print("asked", t)
    return False


def print_in_an_operand(x):
    h = x
    for t in range(5):
        h = h + 1.0
        if tf.reduce_sum(h) > 3.0 or loud(t):
            break
    return h


def test_an_operand_with_effects_keeps_the_loop_unrolled_with_a_reason():
    calls = [(tf.constant([v]),) for v in (0.1, 1.5, 0.5, 3.0, 0.01, 1.0, 0.2)]
    assert_same(effect_in_an_operand, calls, make_state=Box)
    assert_same(print_in_an_operand, calls)
    jitted = janus.jit(print_in_an_operand)
    for call in calls:
        jitted(*call)
    assert "side effects" in janus.explain(jitted)


def while_with_a_compound_exit(x, n, k):
    t = tf.constant(0)
    out = []
    while t < n:
        x = tf.cos(x) * 1.7
        if tf.reduce_sum(x) > 1.5 and not len(out) < k:
            break
        out.append(x)
        t = t + 1
    return x, out, t


def test_a_while_on_a_tensor_with_a_compound_exit():
    calls = [(tf.constant([v]), n, k) for v, n, k in
             ((0.1, 5, 0), (1.0, 3, 1), (0.5, 0, 2), (2.0, 6, 3), (0.3, 8, 9), (-1.0, 4, 0))]
    assert_same(while_with_a_compound_exit, calls)
    one_while_loop(while_with_a_compound_exit, calls)
