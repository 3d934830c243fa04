"""A tensor-valued test on numbers janus feeds (a step counter) is traced for the outcome
it has in the call being traced, which the trace knows from the fed values
(janus/graphgen/known_numbers.py, F455); before, for the last profiled call's outcome,
one call behind a test of period 2, so the graph failed the call that traced it.

Each test compares janus with plain Python call by call (tests/differential.py)."""
import operator

import pytest
import tensorflow as tf

from janus.graphgen import known_numbers
from janus.graphgen.known_numbers import UNKNOWN
from tests.differential import assert_same


class State:
    def __init__(self):
        self.n = 0
        self.acc = tf.Variable(0.0)


def every_2nd(s, x):
    s.acc.assign_add(tf.reduce_sum(x))
    s.n += 1
    if s.n % 2 == 0:
        print("step", s.n)
    return s.acc * 2.0


def _calls(n):
    return [(tf.constant([float(i), 1.0]),) for i in range(n)]


def test_the_first_graph_runs_the_call_that_traced_it():
    # profiled: n=1 (False), n=2 (True); the trace at n=3 asserts False (before: True,
    # the graph failed and the call reran plainly)
    stats = assert_same(every_2nd, _calls(3), make_state=State)
    assert stats.generations == 1 and stats.graph_calls == 1, stats


def shifted(s, x):
    s.acc.assign_add(tf.reduce_sum(x))
    s.n += 1
    k = s.n * 2 - 1
    if (k + 1) // 2 % 3 == 0:
        print("third", k)
    if -s.n < -4 and float(s.n) / 2 >= 2.5:
        s.acc.assign(s.acc * 0.5)
    if s.n ** 2 > 30:
        s.acc.assign_add(1.0)
    return s.acc


def in_a_loop(s, x):
    s.n += 1
    for i in range(3):
        if (s.n + i) % 2 == 0:
            print("even", s.n + i)
            s.acc.assign_add(tf.reduce_sum(x))
    return s.acc


def with_tensor_operands(s, x):
    s.n += 1
    if s.n % 3 == 0 or tf.reduce_sum(x) > 100.0:  # (a value of either type: MixedBool)
        print("third", s.n)
    if s.n % 2 == 0 and tf.reduce_max(x) > -1.0:
        s.acc.assign_add(1.0)
    return s.acc


@pytest.mark.parametrize("fn", [shifted, in_a_loop, with_tensor_operands])
def test_tests_on_arithmetic_of_a_fed_counter_agree(fn):
    stats = assert_same(fn, _calls(24), make_state=State)
    assert stats.graph_calls >= 12, stats


class Lookups:
    """A truthy object whose every missing attribute is a failed lookup."""

    def __getattr__(self, name):
        raise KeyError(name)


class WithLookups(State):
    def __init__(self):
        super().__init__()
        self.cfg = Lookups()


def reads_an_object(s, x):
    s.n += 1
    if s.cfg:  # (a Python-valued test: no attribute of the object is looked up)
        s.acc.assign_add(tf.reduce_sum(x))
    if s.n % 2 == 0:
        print("even", s.n)
    return s.acc


def test_a_python_valued_test_on_an_object_looks_nothing_up():
    stats = assert_same(reads_an_object, _calls(12), make_state=WithLookups)
    assert stats.graph_calls >= 6, stats


@pytest.mark.parametrize("op, left, right, value", [
    ("mod", 7, 2, 1), ("floordiv", -7, 2, -4), ("truediv", 1, 4, 0.25),
    ("pow", 2, 10, 1024), (tf.equal, 3, 3.0, True), (tf.less, 2, 1, False)])
def test_known_values_are_computed_as_python_does(op, left, right, value):
    result = known_numbers.combine(op, left, right)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize("op, left, right", [
    ("mod", 1, 0), ("truediv", 1.0, 0.0), ("pow", 3, 10 ** 6), ("add", UNKNOWN, 1),
    (tf.less, (-8) ** 0.5, 1), (operator.add, 1, 2)])
def test_what_python_would_raise_on_or_make_huge_stays_unknown(op, left, right):
    assert known_numbers.combine(op, left, right) is UNKNOWN


def test_conversions_and_truth():
    assert known_numbers.convert(2.7, int) == 2
    assert known_numbers.convert(float("nan"), int) is UNKNOWN
    assert known_numbers.convert(3, operator.neg) == -3
    assert known_numbers.truth(0.0) is False and known_numbers.truth(UNKNOWN) is None
