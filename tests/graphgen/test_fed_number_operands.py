"""A tensor-valued `or` whose later operand computes with a number janus feeds (F338,
fuzz v76 seed 59). Fed, the number reached the operand as a stand-in: `abs(dv3)` raised
TypeError while traced, and the branch that raised made the graph guard the other outcome
(`tf.reduce_sum(h) > 2.5` is True), which the profile's first iteration contradicts: every
graph failed its guard on its first call and was traced again (6 generations in 8 calls,
one graph call). Now `abs` of a fed number is a graph op, and a stand-in's own TypeError
where profiling saw Python evaluate the operand fails the trace instead of guarding an
outcome the calls do not have. Every test compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same

V = tf.Variable(0.5)


class State:
    def __init__(self):
        self.peer = {"n": 0}
        self.log = []


def stops_on_tensor_or_fed_abs(s, x):
    s.peer["n"] += 1                      # a counter: fed once it changes
    k = s.peer["n"]
    h, v, out = x * 0.5, 1.5 * (k + 1), []
    for i in range(6):
        h = h * 0.7 + V
        v = (v + 1.0) * 0.75
        out.append(h * 0.5)
        stop = tf.reduce_sum(h) > 2.5 or abs(v) > 1e6 or i >= 6   # False, then True
        if stop:
            break
    s.log.append(len(out))
    return h, v, len(out)


def test_abs_of_a_fed_number_in_an_or_keeps_one_graph():
    calls = [(tf.zeros([2, 2]),)] * 10
    stats = assert_same(stops_on_tensor_or_fed_abs, calls, make_state=State)
    assert stats.generations <= 3 and stats.graph_calls >= 6, stats


def fed_abs_values(s, x, k):
    s.peer["n"] += k
    n = s.peer["n"] - 3
    m = -n
    return x * abs(n), abs(m * 0.5), abs(n > 0), abs(-2.5 * n) > 4.0


def test_abs_of_fed_ints_floats_and_bools_is_pythons():
    calls = [(tf.ones([2]), 1)] * 4 + [(tf.ones([2]), 2)] * 4 + [(tf.ones([2]), -3)] * 3
    stats = assert_same(fed_abs_values, calls, make_state=State)
    assert stats.graph_calls >= 6, stats


def stops_on_tensor_or_fed_divmod(s, x):
    s.peer["n"] += 1
    k = s.peer["n"]
    h, v = x * 0.5, 1.5 * (k + 1)
    for i in range(6):
        h = h * 0.7 + V
        v = (v + 1.0) * 0.75
        stop = tf.reduce_sum(h) > 2.5 or divmod(v, 7.0)[1] > 6.99 or i >= 6
        if stop:
            break
    return h, v


def test_an_operand_a_fed_number_cannot_trace_does_not_guard_the_other_outcome():
    """`divmod` of a fed float is not a graph op: the trace fails where it runs; the
    graph does not assume the `or`'s first operand True (it is False on the first
    iteration of every call: a guard that never held)."""
    calls = [(tf.zeros([2, 2]),)] * 8
    stats = assert_same(stops_on_tensor_or_fed_divmod, calls, make_state=State)
    assert stats.graph_calls >= 3, stats
