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


def nested_branch(x, flag):
    out = x
    for i in range(2):
        if flag:
            z = x * 2.0
        out = out + z          # UnboundLocalError when flag is false, inside the loop
    return out


def nested_loop(x, xs):
    acc = x
    for i in range(2):
        for item in xs:
            w = item * 0.5
        acc = acc + w          # UnboundLocalError after an inner loop of no iteration
    return acc


def nested_print(x, flag):
    for i in range(2):
        if flag:
            z = x
        print("z is", z)       # no "<undefined>" printed: Python raises first
    return x


def test_names_nested_blocks_leave_unbound_raise_as_in_python():
    """F135 (seed 1110145): in a nested block the name held janus's UNDEFINED (a
    ValueError from TF, `<undefined>` printed); now unbound, and its read in janus's
    closure (a NameError there) raises Python's UnboundLocalError."""
    assert_same(nested_branch, [(tf.constant(1.0), True), (tf.constant(2.0), False)] * 3)
    one = [tf.constant(1.0)]
    assert_same(nested_loop, [(tf.constant(1.0), one), (tf.constant(2.0), [])] * 3)
    assert_same(nested_print, [(tf.constant(1.0), True), (tf.constant(2.0), False)] * 3)


def test_an_unbound_free_variable_stays_a_name_error():
    def make():
        def inner(x, flag):
            out = x
            for i in range(2):
                if flag:
                    out = out + 1.0
                out = out + outer_value      # free in `inner`: NameError, as in Python
            return out
        if False:
            outer_value = 1.0
        return inner
    assert_same(make(), [(tf.constant(1.0), True), (tf.constant(2.0), False)] * 2)


def nested_def_reads_unbound(x, flag):
    def peek():
        return later * 2.0         # free in `peek`: NameError when called before `later`
    out = x
    for i in range(2):
        if flag:
            out = out + peek()
        out = out + 1.0
    later = x
    return out + later


def test_a_nested_def_reading_an_unbound_name_raises_name_error_as_in_python():
    """Not made an UnboundLocalError: the read is in the user's own nested def."""
    assert_same(nested_def_reads_unbound,
                [(tf.constant(1.0), False), (tf.constant(2.0), True)] * 3)


def while_test_reads_body_name(x, n):
    i = 0
    while i < n:
        if i > 0:
            t = t + x          # read before bound on the first iteration only when i > 0
        else:
            t = x
        i += 1
    try:
        while t < 2.0 * n:     # bound above only when n > 0
            t = t + x
    except UnboundLocalError:
        return -x
    return t


def body_reads_first(x, n):
    for i in range(n):
        acc = acc + x          # never bound before: UnboundLocalError on any iteration
    return x


def branch_reads_first(x, flag):
    if flag:
        z = z + x              # z unbound: the taken branch raises
    else:
        z = x
    return z


def iterable_reads_bound_name(x, flag):
    for item in (items if flag else [x]):
        items = [item, item]   # `items` read by the iterable before the loop binds it
    return items


def test_a_block_reading_its_own_unbound_name_first_raises_as_in_python():
    """F179: a `while` test, a loop body, a branch or a loop's iterable reading a name the
    block binds, before anything bound it: janus read its UNDEFINED marker (a TypeError
    of janus's own while profiling, `<undefined>` in a trace); now UnboundLocalError."""
    assert_same(while_test_reads_body_name,
                [(tf.constant(1.0), 0), (tf.constant(1.0), 3), (tf.constant(2.0), 2)] * 3)
    assert_same(body_reads_first, [(tf.constant(1.0), 0), (tf.constant(1.0), 2)] * 3)
    assert_same(branch_reads_first, [(tf.constant(1.0), False), (tf.constant(2.0), True)] * 3)
    assert_same(iterable_reads_bound_name,
                [(tf.constant(1.0), False), (tf.constant(2.0), True)] * 3)
