"""A `continue` in a loop whose only way out is `if <test>: break` (before or after the exit
test, which need not be the first statement) still makes one tf.while_loop
(transform/continues.py); every test compares janus with plain Python call by call, the
loops exiting at different iterations, never, and at once."""
import tensorflow as tf

import janus
from janus.transform import convert
from tests.differential import assert_same
from tests.graphgen.test_exit_compound import one_while_loop


def skip_then_stop(x, n):
    h = x
    toks = []
    for t in range(n):
        h = h * 1.3 + 0.2
        toks.append(tf.reduce_sum(h))
        if tf.reduce_max(h) > 1.0:
            h = h - 0.9
            continue
        h = h + 0.05
        if tf.reduce_sum(h) > 2.5:
            break
        h = h * 1.1
    return h, toks


CALLS = [(tf.constant([v, 0.5]), n) for v, n in
         ((0.1, 8), (1.0, 8), (0.5, 3), (2.0, 9), (0.3, 0), (0.2, 8), (0.7, 8), (9.0, 4),
          (-20.0, 8), (0.95, 5), (1.5, 1))]


def test_continue_before_the_exit_test():
    code = convert(skip_then_stop).code
    assert "janus__skip_" in code and "for_stmt(" in code
    assert_same(skip_then_stop, CALLS)
    one_while_loop(skip_then_stop, CALLS)


def stop_then_skip(x, n):
    h = x
    out = []
    for t in range(n):
        h = tf.sin(h) * 1.4 + 0.3
        out.append(h)
        if tf.reduce_sum(h) > 2.2:
            break
        if tf.reduce_min(h) < 0.0:
            continue
        h = h * 0.9
    return h, out


def test_continue_after_the_exit_test_which_is_not_the_first_statement():
    calls = [(tf.constant([v, -v]), n) for v, n in
             ((0.1, 8), (1.0, 8), (-0.5, 3), (2.0, 9), (0.3, 0), (-3.0, 8), (0.7, 8),
              (5.0, 4), (1.2, 1))]
    assert_same(stop_then_skip, calls)
    one_while_loop(stop_then_skip, calls)


def while_with_continue(x, n):
    t = tf.constant(0)
    while t < n:
        t = t + 1
        x = x * 1.5 - 0.2
        if tf.reduce_max(x) > 2.0:
            x = x * 0.25
            continue
        if tf.reduce_sum(x) < -1.0:
            break
        x = x + 0.1
    return x, t


def test_a_while_on_a_tensor_with_continue_and_break():
    calls = [(tf.constant([v]), n) for v, n in
             ((0.1, 6), (1.0, 6), (-0.5, 3), (2.0, 9), (0.3, 0), (-3.0, 8), (0.5, 8), (-0.1, 4))]
    assert_same(while_with_continue, calls)
    one_while_loop(while_with_continue, calls)


def appends_after_continue(x, n):
    h = x
    out = []
    for t in range(n):
        h = h * 1.3 + 0.2
        if tf.reduce_max(h) > 1.0:
            h = h - 0.9
            continue
        out.append(h)  # (a list grown in one branch only: no tf.while_loop can hold it)
        if tf.reduce_sum(h) > 3.0:
            break
    return h, out


def two_continues(x, n):
    h = x
    for t in range(n):
        h = h * 1.3 + 0.2
        if tf.reduce_max(h) > 1.0:
            h = h - 0.9
            continue
        if tf.reduce_min(h) < 0.0:
            continue
        if tf.reduce_sum(h) > 1.5:
            break
    return h


def test_shapes_that_cannot_be_one_while_loop_stay_unrolled_and_exact():
    calls = [(tf.constant([v, 0.5]), n) for v, n in
             ((0.1, 8), (1.0, 8), (0.5, 3), (2.0, 9), (0.3, 0), (-20.0, 8), (0.95, 5))]
    assert_same(appends_after_continue, calls)
    jitted = janus.jit(appends_after_continue)
    for call in calls:
        jitted(*call)
    assert "changes a list, dict or object in place" in janus.explain(jitted)
    assert "janus__skip_" not in convert(two_continues).code  # left as it is
    assert_same(two_continues, calls)


def compound_continue(x, n, flag):
    h = x
    for t in range(n):
        h = h * 1.3 + 0.2
        if tf.reduce_max(h) > 1.0 or flag:
            h = h - 0.9
            continue
        if tf.reduce_sum(h) > 2.5:
            break
    return h


def test_a_compound_continue_test_before_the_exit_is_left_as_it_is():
    # (kept in a flag, `a or b` would ask a tensor's truth in the graph): unrolled, exact
    assert "janus__skip_" not in convert(compound_continue).code
    calls = [(tf.constant([v, 0.5]), n, flag) for v, n, flag in
             ((0.1, 8, False), (1.0, 8, False), (0.5, 3, True), (2.0, 9, False), (0.3, 0, False),
              (0.2, 8, True), (0.7, 8, False))]
    assert_same(compound_continue, calls)


class Experts:
    def __init__(self):
        self.w = [tf.Variable(tf.eye(3) * (i + 1.0)) for i in range(3)]


def route(s, x, chosen):
    # (zoo p42: `if count == 0: continue` in a loop over experts, no `break`)
    out = tf.zeros_like(x)
    counts = []
    for e, w in enumerate(s.w):
        mask = tf.equal(chosen, e)
        tokens = tf.boolean_mask(x, mask)
        counts.append(tf.shape(tokens)[0])
        if counts[-1] == 0:
            continue
        out = tf.tensor_scatter_nd_update(out, tf.where(mask), tokens @ w)
    return out, tf.stack(counts)


def test_a_tensor_test_before_continue_in_a_loop_without_break_becomes_a_cond():
    code = convert(route).code
    assert "continue" not in code  # what follows the `if` is its `else:`
    calls = [(tf.ones([4, 3]) * i, tf.constant([i % 3, (i + 1) % 3, 0, (i * 2) % 3]))
             for i in range(12)]
    jitted = janus.jit(route)
    stats = assert_same(route, calls, make_state=Experts, jitted=jitted)
    assert stats.internal_errors == 0 and stats.generations <= 2, stats
    assert any("tf.cond" in line for line in jitted.plan.describe()), jitted.plan
