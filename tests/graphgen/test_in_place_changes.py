"""Class: a block janus generalizes (a `tf.cond` branch, a `tf.while_loop` body) is traced
once, so it must not change the call's own lists, dicts or objects in place.

Traced, `if <tensor>: out.append(x)` appended while tracing the true branch, and the
false branch (and every later run of the graph) saw the appended item: a silently wrong
result. Such a block now stays specialized (in-graph guarded) instead.
"""
import tensorflow as tf

from tests.differential import assert_same

POS, NEG = tf.constant([1.0]), tf.constant([-1.0])
FLIPPING = [(POS,), (NEG,), (POS,), (NEG,), (POS,), (NEG,), (POS,), (NEG,)]


def append_in_branch(x):
    out = [x]
    if tf.reduce_sum(x) > 0:
        out.append(x)
    return tf.add_n(out)


def dict_item_in_branch(x):
    table = {"a": x}
    if tf.reduce_sum(x) > 0:
        table["b"] = x
    return tf.add_n(list(table.values())), len(table)


class Box:
    def __init__(self, value):
        self.value = value


def attribute_in_branch(x):
    box = Box(x * 3.0)
    if tf.reduce_sum(x) > 0:
        box.value = x
    return box.value


def test_branch_changing_a_list_a_dict_or_an_object_in_place():
    assert_same(append_in_branch, FLIPPING)
    assert_same(dict_item_in_branch, FLIPPING)
    assert_same(attribute_in_branch, FLIPPING)


def counts_in_while(x):
    steps = []
    while tf.reduce_sum(x) < 10.0:
        steps.append(1)
        x = x * 2.0
    return x, len(steps)


def test_while_body_changing_a_list_in_place():
    calls = [(tf.constant([float(v)]),) for v in (1, 3, 0.5, 7, 2, 11, 1, 4, 6, 0.25)]
    assert_same(counts_in_while, calls)


def tally_over_varying_list(x, xs):
    seen = {"n": 0}
    for item in xs:
        seen["n"] = seen["n"] + 1
        x = x + item
    return x, seen["n"]


def test_loop_over_a_varying_list_changing_a_dict_in_place():
    one = tf.ones([2])
    calls = [(one, [one] * n) for n in (2, 3, 1, 4, 2, 5, 3)]
    assert_same(tally_over_varying_list, calls)
