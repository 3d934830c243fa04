"""Class: a Python decision on a list whose length varies from call to call must be
guarded, in loops too (issue 9, failure 2).

Once a list argument's length varies, the graph holds it as one stacked tensor
(`DynamicList`) and `len(xs)` as a run-time value. Those stand-ins used to fall back to
`object`'s defaults: `len(xs) == 1` was identity (always False), `if xs:` always true,
so a graph silently skipped a `raise` (or took a branch) that plain Python did not. Now
`len(xs)` is a run-time Python int (comparisons become in-graph guarded tests) and any
other Python use of a stand-in (truth value, ==, printing) fails the trace: the call
runs eagerly.
"""
import tensorflow as tf

from tests.differential import assert_same


def c(*values):
    return tf.constant(list(values), tf.float32)


Z = c(0.0, 0.0)


def raise_in_mixed_while(x, xs):
    acc = x
    j = 0
    while j < 2 and tf.reduce_mean(acc) > -0.5:
        if len(xs) == 1:
            raise ValueError("one item")
        for v in xs:
            acc = acc + v
        acc = acc - 1.0
        j += 1
    return acc


def raise_in_tensor_while(x, xs):
    acc = x
    while tf.reduce_mean(acc) > -0.5:
        if len(xs) == 1:
            raise ValueError("one item")
        acc = acc - 1.0
    return acc


GROWS = [(c(1.0, 2.0), [])] * 3 + [(c(1.0, 2.0), [Z])] * 3 + [(c(1.0, 2.0), [])]
VARIES = [(c(1.0, 2.0), [Z] * n) for n in (2, 3, 2, 4, 1, 1, 3, 1)]


def test_raise_on_list_length_inside_a_loop_with_a_mixed_condition():
    assert_same(raise_in_mixed_while, GROWS)
    assert_same(raise_in_mixed_while, VARIES)


def test_raise_on_list_length_inside_a_tensor_while():
    assert_same(raise_in_tensor_while, GROWS)
    assert_same(raise_in_tensor_while, VARIES)


def branch_on_length(x, xs):
    total = x
    for v in xs:
        total = total + v
    if len(xs) != 3:
        total = total * 2.0
    return total


def test_branch_on_the_length_of_a_varying_list():
    calls = [(c(1.0, 2.0), [c(1.0, 1.0)] * n) for n in (1, 2, 3, 1, 4, 2, 3, 0, 5)]
    assert_same(branch_on_length, calls)


def raise_on_item_inside_loop(x, xs):
    for v in xs:
        if tf.reduce_sum(v) < 0:
            raise ValueError("negative item")
        x = x + v
    return x


def test_raise_on_an_item_inside_a_loop_over_a_varying_list():
    pos, neg = c(1.0, 1.0), c(-1.0, -1.0)
    calls = [(Z, [pos] * n) for n in (1, 2, 3, 2)] + [(Z, [pos, neg])] + \
        [(Z, [pos] * 3), (Z, [pos, pos, neg]), (Z, [pos])]
    assert_same(raise_on_item_inside_loop, calls)


def prints_the_list(x, xs):
    total = x
    for v in xs:
        total = total + v
    print("items:", len(xs))
    return total, len(xs) == 2


def test_printing_and_returning_facts_about_the_length_of_a_varying_list():
    calls = [(Z, [c(1.0, 1.0)] * n) for n in (1, 2, 3, 2, 4, 1)]
    assert_same(prints_the_list, calls)
