"""A `for` loop whose only way out is `if <tensor>: break` becomes one tf.while_loop
(janus/graphgen/exits.py); every test compares janus with plain Python call by call."""
import numpy as np
import tensorflow as tf

import janus
from janus.transform import convert
from tests.differential import assert_same

W = tf.constant(np.random.default_rng(0).normal(size=(4, 4)).astype(np.float32))


def grow_until(x, n):
    out = []
    h = x
    for t in range(n):
        h = h * 1.5 + 1.0
        if tf.reduce_sum(h) > 40.0:
            break
        out.append(h)
    return out, h


def values(*vs):
    return [(tf.constant([v, v]), 8) for v in vs]


def test_the_loop_takes_the_functional_form_with_its_exit():
    code = convert(grow_until).code
    assert "return True" in code and "for_stmt(" in code


def test_break_on_a_tensor_stops_a_while_loop_at_any_iteration():
    stats = assert_same(grow_until, values(1.0, 2.0, 0.5, 3.0, 0.1, 5.0, 1.0, 2.0, 0.3, 7.0,
                                           100.0, -1.0, 0.0, 4.0))
    assert stats.graph_calls + stats.plain_calls >= 8
    assert stats.generations <= 3
    fn = janus.jit(grow_until)
    for x, n in values(1.0, 2.0, 0.5, 3.0):
        fn(x, n)
    assert any(spec.plan.general_branches for spec in fn.specializations)  # one while_loop


def test_a_loop_that_never_breaks_and_one_that_breaks_at_once():
    assert_same(grow_until, values(-10.0, 30.0, -10.0, 30.0, 0.2, -5.0, 50.0, 0.4))


def test_zero_iterations():
    assert_same(grow_until, [(tf.constant([1.0, 1.0]), n) for n in (3, 0, 5, 0, 2, 1, 0)])


def count_steps(x):
    steps = 0
    for t in range(6):
        x = x * 2.0
        if tf.reduce_max(x) > 10.0:
            break
        steps = steps + 1
    return x, steps


def test_a_python_number_the_rest_of_the_body_changes_is_not_generalized():
    # `steps` is a Python int changed after the test: the loop stays unrolled (guarded)
    assert_same(count_steps, [(tf.constant([v]),) for v in (1.0, 0.1, 3.0, 0.5, 9.0, 1.0)])


def t_counter(x):
    last = -1
    for t in range(7):
        x = tf.sin(x) + 0.5
        if tf.reduce_sum(x) > 1.2:
            break
        last = t
    return x, last


def test_the_loop_index_is_a_python_int_after_the_loop():
    assert_same(t_counter, [(tf.constant([v]),) for v in (0.1, 1.0, -2.0, 0.3, 2.0, 0.0)])


def over_a_list(xs, limit):
    total = tf.zeros([2])
    for v in xs:
        total = total + v
        if tf.reduce_sum(total) > limit:
            break
        total = total * 0.9
    return total


def test_over_a_list_of_tensors():
    xs = [tf.constant([float(i), 1.0]) for i in range(5)]
    assert_same(over_a_list, [(xs, lim) for lim in (3.0, 100.0, 0.5, 8.0, 3.0, 20.0)])


def with_print(x):
    for t in range(4):
        x = x + 1.0
        if tf.reduce_sum(x) > 5.0:
            break
        print("step", t)
    return x


def test_a_print_after_the_test_keeps_the_loop_specialized():
    assert_same(with_print, [(tf.constant([v]),) for v in (0.0, 3.0, 1.0, 4.5, 0.0, 2.0)])


def changes_type(x):
    y = 0
    for t in range(4):
        x = x + 1.0
        if tf.reduce_sum(x) > 3.0:
            break
        y = x * 2.0
    return y


def test_a_name_read_after_the_loop_that_changes_type_is_refused_not_wrong():
    assert_same(changes_type, [(tf.constant([v]),) for v in (0.0, 2.5, 1.0, 5.0, 0.5, 2.9)])


def nested(x):
    rows = []
    for i in range(3):
        h = x * float(i + 1)
        for t in range(5):
            h = h + 1.0
            if tf.reduce_sum(h) > 6.0:
                break
        rows.append(h)
    return rows


def test_an_exit_loop_inside_another_loop():
    assert_same(nested, [(tf.constant([v]),) for v in (0.0, 1.0, -3.0, 2.0, 0.5, -1.0)])


def test_a_loop_over_a_varying_list_generalizes_with_its_break():
    fn = janus.jit(over_a_list)
    for n in (3, 5, 2, 4, 6, 3, 2):
        xs = [tf.constant([float(i), 1.0]) for i in range(n)]
        np.testing.assert_allclose(fn(xs, 4.0).numpy(), over_a_list(xs, 4.0).numpy())


def until_small(x):
    steps = []
    while True:
        x = x * 0.5 + 0.1
        if tf.reduce_max(x) < 0.3:
            break
        steps.append(tf.reduce_sum(x))
    return x, steps


def while_bounded(x, n):
    t = tf.constant(0)
    while t < n:
        x = tf.sin(x) * 1.5
        if tf.reduce_sum(x) > 2.0:
            break
        t = t + 1
    return x, t


def test_while_true_with_a_tensor_break_is_one_while_loop():
    values = [(tf.constant([v, 1.0]),) for v in (1.0, 8.0, 0.2, 40.0, 3.0, 0.1, 100.0, 2.0)]
    assert_same(until_small, values)
    fn = janus.jit(until_small)
    for (x,) in values:
        fn(x)
    assert any(spec.plan.general_branches for spec in fn.specializations)


def test_while_with_a_tensor_test_and_a_tensor_break():
    assert_same(while_bounded, [(tf.constant([v]), n) for v, n in
                                ((0.1, 5), (1.0, 3), (0.5, 0), (2.0, 6), (0.3, 8), (-1.0, 4))])


class Counter:
    def __init__(self):
        self.calls = 0

    def more(self, t):
        self.calls += 1
        return t < 4


def effect_in_the_test(box, x):
    t = tf.constant(0)
    while box.more(t):
        x = x * 1.5
        if tf.reduce_sum(x) > 3.0:
            break
        t = t + 1
    return x


def test_a_while_test_with_effects_is_not_traced_once_for_all_iterations():
    assert_same(effect_in_the_test, [(tf.constant([v]),) for v in (0.1, 1.0, 0.5, 2.5, 0.2)],
                make_state=Counter)


def grows_around_the_test(x, n):
    before, after = [], []
    h = x
    for t in range(n):
        h = h * 1.5 + 0.5
        before.append(h)                 # counted where the test stops the iteration
        if tf.reduce_sum(h) > 30.0:
            break
        after.append(h * 2.0)            # not counted there
    return len(before), len(after), before, after, h


def test_lists_grown_before_and_after_the_one_exit_test_keep_their_lengths():
    """With one exit test the loop carries no count per list (each iteration that goes on
    grows each by one): stopped in the peeled iteration, in a later one, or never."""
    calls = [(tf.constant([v, v]), n) for v, n in
             ((1.0, 9), (20.0, 9), (0.1, 9), (1.0, 1), (2.0, 3), (40.0, 2), (0.2, 30),
              (3.0, 9), (1.0, 2))]
    stats = assert_same(grows_around_the_test, calls)
    assert stats.graph_calls >= 4, stats
