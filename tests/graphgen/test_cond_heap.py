"""A tensor-valued `if` whose outcome changes from call to call, writing attributes of
heap objects (`s.matches += 1`, `s.h = s.h + x`), runs as one tf.cond whose outputs are
the attributes' values (graphgen/cond_heap.py). Every test compares janus with plain
Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.count = 0
        self.total = 0.5
        self.h = tf.zeros([2])
        self.flag = False
        self.name = "start"


def counts(s, xs):
    for x in xs:  # (4 tests: 16 combinations of outcomes, too many to specialize to)
        if tf.reduce_sum(x) > 0.0:
            s.count += 1
            s.h = s.h + x
        else:
            s.total = s.total * 0.5
    return s.h * 2.0


def inputs(n, shift=0):
    return [(tf.constant([float((i * 7 + shift) % 5) - 2.0, 0.5]),) for i in range(n)]


def mixed(n):
    rows = tf.random.stateless_normal([n, 4, 2], [4, 2])
    return [([rows[i, j] for j in range(4)],) for i in range(n)]


def test_attribute_writes_in_both_branches_of_a_changing_test_run_as_one_graph():
    stats = assert_same(counts, mixed(30), make_state=State)
    assert stats.graph_calls + stats.plain_calls >= 20


def one_sided(s, x):
    if tf.reduce_max(x) > 1.0:
        s.count = s.count + 2
        s.flag = not s.flag
    return x + 1.0


def test_a_write_in_one_branch_only_keeps_the_value_from_before_in_the_other():
    stats = assert_same(one_sided, inputs(24, 1), make_state=State)
    assert stats.graph_calls + stats.plain_calls >= 14


def text_written(s, x):
    if tf.reduce_max(x) > 1.0:
        s.name = "big"  # (not a tensor nor a number: the `if` stays specialized)
        s.count += 1
    return x


def other_attributes(s, x):
    if tf.reduce_max(x) > 1.0:
        s.count += 1
    else:
        s.total += 1.0
        s.h = s.h - x  # (written by one branch: carried; read before the `if` in the other)
    return s.h


def printed(s, x):
    if tf.reduce_max(x) > 1.0:
        print("big", s.count)
        s.count += 1
    return x


def types_change(s, x):
    if tf.reduce_max(x) > 1.0:
        s.count = 0.5  # (an int in the other branch: Python's type follows the branch)
    return x


def test_what_is_not_carried_stays_right():
    for fn in (text_written, other_attributes, printed, types_change):
        assert_same(fn, inputs(16, 2), make_state=State)


class Count:
    def __init__(self):
        self.count = 0
        self.v = tf.Variable([0.5, 0.5])


def step_taking_a_gradient_in_one_branch(s, x):
    acc = x
    for i in range(2):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(acc * s.v) * float(i + 1)
        if y > 1.5:  # (outcomes that differ from call to call: a tf.cond)
            s.count = s.count + 1  # (an attribute the other branch does not write)
            continue
        g = tape.gradient(y, s.v)  # (a non-persistent tape: one gradient)
        s.v.assign_sub(0.05 * g)
        acc = acc * 0.5 + y
    return acc


def test_a_branch_taking_a_tape_s_gradient_is_not_traced_twice():
    # (F486: the other branch's attribute write retraced both: the tape's second
    # gradient raised RuntimeError inside janus, an internal error)
    calls = [(tf.constant([1.0, 1.0]) * (1.0 + 2.0 * (i % 2)),) for i in range(8)]
    assert_same(step_taking_a_gradient_in_one_branch, calls, make_state=Count)
