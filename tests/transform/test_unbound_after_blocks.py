"""A name a block binds only on some paths (the branch not taken, a loop that ran no
iteration) is unbound after it, as in Python: reading it raises UnboundLocalError, not
janus's UNDEFINED placeholder (transform/control_flow._unbind; boolv10-F55). Each test
compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def branch_only(x, flag):
    if flag:
        z = x * 2.0
    y = z
    return y


def test_a_name_bound_in_the_branch_not_taken_is_unbound():
    calls = [(tf.constant(1.0), True), (tf.constant(2.0), False)] * 3  # (profiled, graphs)
    assert_same(branch_only, calls)


def loop_only(xs):
    for item in xs:
        last = item
    return last + 1.0, item


def test_a_loop_that_ran_no_iteration_leaves_its_names_unbound():
    calls = [([tf.constant(1.0), tf.constant(2.0)],), ([],)] * 3
    assert_same(loop_only, calls)


def tensor_branch(x):
    if tf.reduce_sum(x) > 0:
        z = x + 1.0
    else:
        w = x - 1.0
    try:
        return z
    except UnboundLocalError:
        return -x


def test_a_tensor_test_s_untaken_branch_leaves_its_names_unbound():
    """(Passes without `_unbind` too: the graph path raised already; kept as a guard.)"""
    calls = [(tf.constant([1.0, 2.0]),), (tf.constant([-3.0, 1.0]),)] * 3
    assert_same(tensor_branch, calls)
