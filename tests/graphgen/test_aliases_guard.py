"""The `aliases` host guard (which tensor reads are one object): its inline check agrees
with the definition on every assignment of objects, it is emitted only for reads that
could be one object, and janus stays equal to eager when aliasing appears or goes.
"""
import itertools

import pytest
import tensorflow as tf

import janus
from janus.graphgen.guards import Guard, GuardSet, aliases_guard
from janus.graphgen.sources import arg
from tests.differential import assert_same


def same_objects(values, classes) -> bool:
    """The definition: values[i] is values[j] exactly when classes[i] == classes[j]."""
    return all((values[i] is values[j]) == (classes[i] == classes[j])
               for i in range(len(values)) for j in range(len(values)))


def _partitions(n):
    """Every class assignment of n reads, classes numbered in order of first use."""
    for labels in itertools.product(range(n), repeat=n):
        if all(labels[k] <= max(labels[:k], default=-1) + 1 for k in range(n)):
            yield labels


def test_the_inline_check_is_the_definition_for_every_assignment():
    """Up to 6 reads (beyond 4 distinct objects the check is a set of ids): for each
    expected class assignment and each actual one, `check` passes exactly when the
    actual objects are the expected classes."""
    objects = [tf.constant(float(k)) for k in range(6)]
    for n in range(2, 7):
        assignments = list(_partitions(n))
        for expected in assignments:
            guard = Guard("aliases", arg(0), tuple((arg(k), c) for k, c in enumerate(expected)))
            check = GuardSet([guard], {}, ()).check
            for actual in assignments:
                values = tuple(objects[c] for c in actual)
                assert (check(values, {}) < 0) == same_objects(values, expected), \
                    (expected, actual)


def test_only_reads_that_could_be_one_object_are_checked():
    f32, i32 = ("float32", (4,)), ("int32", ())
    assert aliases_guard([([arg(0)], f32), ([arg(1)], i32)]) is None  # never one object
    assert aliases_guard([([arg(0)], f32)]) is None
    guard = aliases_guard([([arg(0)], f32), ([arg(1)], i32), ([arg(2)], ("float32", (None,)))])
    assert [str(s) for s, _ in guard.expected] == ["args[0]", "args[2]"]
    guard = aliases_guard([([arg(0), arg(1)], f32), ([arg(2)], i32)])  # read twice: checked
    assert [(str(s), c) for s, c in guard.expected] == [("args[0]", 0), ("args[1]", 0)]
    assert aliases_guard([([arg(0)], ("float32", (4,))),
                          ([arg(1)], ("float32", (5,)))]) is None


def tape_over_two_arguments(a, b):
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(tf.tanh(a) * b)
    return tape.gradient(y, a), a is b


X, Y = tf.constant([0.5, -1.0]), tf.constant([2.0, 3.0])


@pytest.mark.parametrize("calls", [
    [(X, Y)] * 4 + [(X, X)] * 3 + [(Y, X)] * 2 + [(Y, Y)],
    [(X, X)] * 4 + [(X, Y)] * 3 + [(Y, Y)] * 2 + [(X, Y)],
], ids=["aliasing appears", "aliasing goes"])
def test_aliasing_that_appears_or_goes_after_the_trace_runs_as_eager_does(calls):
    """Traced on two objects then called with one object twice, and the other way round
    (fuzz seed 403481: `acc = x` live into a segment as two inputs, the tape watching
    `acc` missed the `x` term): a tape over `a` sees `b`'s term exactly when `a is b`,
    as in plain Python."""
    stats = assert_same(tape_over_two_arguments, calls)
    assert stats.graph_calls >= 5, stats


def mixed_dtypes(a, n):
    return a * tf.cast(n, a.dtype), a is n


def test_reads_that_can_never_be_one_object_have_no_aliases_guard():
    x, k = tf.constant([1.0, 2.0]), tf.constant(3)
    jitted = janus.jit(mixed_dtypes)
    stats = assert_same(mixed_dtypes, [(x, k)] * 5)
    assert stats.graph_calls >= 3, stats
    for _ in range(4):
        jitted(x, k)
    [spec] = jitted.specializations
    assert all(g.kind != "aliases" for g in spec.guards.guards), spec.describe()
