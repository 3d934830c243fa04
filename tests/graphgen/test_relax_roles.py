"""Python numbers that differ across the items of a list are data: fed by role
(`args[0][*].label`), not one value guard per item — one graph for all batches."""
import tensorflow as tf

import janus
from tests.differential import assert_same


class Item:
    def __init__(self, label, weight=1.0):
        self.label = label
        self.weight = weight


def items(*labels):
    return [Item(k, 0.5 + k / 4) for k in labels]


def summed(xs, x):
    total = 0.0
    for item in xs:
        total += tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=[item.label], logits=x)[0] * item.weight
    return total


X = tf.constant([[0.1, 0.7, -0.2, 0.4]])
BATCHES = [(items(0, 1, 3), X), (items(2, 2, 1), X), (items(3, 0, 0), X),
           (items(1, 3, 2), X), (items(0, 0, 1), X), (items(2, 1, 3), X)]


def test_labels_that_differ_across_items_are_fed_at_the_first_generation():
    jitted = janus.jit(summed)
    stats = assert_same(summed, BATCHES, jitted=jitted)
    assert stats.generations == 1 and stats.guard_failures == {}
    assert stats.graph_calls == len(BATCHES) - 2  # after two profiled calls
    plan = jitted.specializations[0].plan.describe()
    assert "number args[0][*].label is fed as a scalar tensor" in plan
    assert "number args[0][*].weight is fed as a scalar tensor" in plan


def test_a_failing_value_guard_generalizes_every_item_of_its_role():
    same = [(items(1, 1, 1), X), (items(1, 1, 1), X), (items(1, 1, 1), X)]
    changing = [(items(1, 1, 2), X), (items(3, 0, 1), X), (items(0, 2, 2), X),
                (items(2, 3, 0), X)]
    jitted = janus.jit(summed)
    stats = assert_same(summed, same + changing, jitted=jitted)
    # one graph with the labels as constants, one guard failure, then one general graph
    assert stats.generations == 2, jitted.specializations[0].describe()
    assert sum(stats.guard_failures.values()) == 1
    assert stats.graph_calls == len(same + changing) - 2  # the failing call: the new graph


def indexed(xs, table):
    out = []
    for item in xs:
        out.append(table[item.label] * 2.0)  # a Python list index: must stay a Python int
    return tf.add_n(out)


def test_a_role_used_as_a_list_index_stays_guarded():
    table = [tf.constant(1.0), tf.constant(2.0), tf.constant(5.0), tf.constant(7.0)]
    calls = [(items(0, 1), table), (items(2, 3), table), (items(0, 1), table),
             (items(2, 3), table), (items(0, 1), table), (items(1, 1), table)]
    jitted = janus.jit(indexed)
    stats = assert_same(indexed, calls, jitted=jitted)
    assert stats.generation_failures == 0  # the fed trace failed inside generate: retraced
    assert any("args[0][*].label stays guarded" in line
               for spec in jitted.specializations for line in spec.plan.describe())


def branchy(xs, x):
    total = x
    for item in xs:
        if item.label > 1:  # a Python `if` on a fed int: an in-graph guard or tf.cond
            total = total * 2.0
        else:
            total = total + float(item.label)
    return total


def test_a_fed_role_in_a_python_if_stays_equal_to_python():
    calls = [(items(0, 2, 3), X), (items(1, 2, 0), X), (items(0, 2, 3), X),
             (items(3, 3, 0), X), (items(0, 0, 0), X), (items(2, 0, 3), X),
             (items(0, 2, 3), X)]
    stats = assert_same(branchy, calls)
    assert stats.graph_calls > 0


def as_tensor(xs):
    return tf.convert_to_tensor([item.label for item in xs]), tf.constant([xs[0].label]), \
        tf.stack([xs[1].label, 4])


def test_fed_ints_convert_to_the_dtypes_of_python_ints():
    calls = [(items(0, 1, 3),), (items(2, 2, 1),), (items(3, 0, 0),), (items(1, 3, 2),)]
    stats = assert_same(as_tensor, calls)  # dtypes compared exactly: int32
    assert stats.graph_calls == 2


def test_ints_beyond_int32_are_not_fed():
    big = 2 ** 40
    calls = [(items(0, 1, 3),), (items(2, 2, 1),), (items(big, 0, 0),), (items(1, big + 1, 2),),
             (items(1, 3, 2),)]
    assert_same(as_tensor, calls)  # int64 where Python's ints need it, as plain TF does


def bare(xs):
    return tf.constant(xs[0].label) * 2, tf.one_hot(xs[1].label, 4), tf.cast(xs[2].label, tf.float32)


def test_a_fed_int_handed_to_tensorflow_alone():
    calls = [(items(0, 1, 3),), (items(2, 2, 1),), (items(3, 0, 0),), (items(1, 3, 2),)]
    stats = assert_same(bare, calls)
    assert stats.graph_calls == 2


class Many:
    def __init__(self, k):
        for name in "abcdefg":
            setattr(self, name, (k * 3 + ord(name)) % 7)


def many_fields(xs, x):
    total = x
    for item in xs:
        total = total + item.a + item.b * 2 + item.c + item.d + item.e + item.f - item.g
    return total


def test_many_varying_fields_are_all_fed_in_one_generation():
    calls = [([Many(k), Many(k + 1), Many(k + 2)], X) for k in range(6)]
    jitted = janus.jit(many_fields)
    stats = assert_same(many_fields, calls, jitted=jitted)
    assert stats.generations == 1 and stats.generation_failures == 0
    plan = jitted.specializations[0].plan
    assert {f"args[0][*].{name}" for name in "abcdefg"} <= plan.scalars
