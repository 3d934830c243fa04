"""A name a loop binds that no iteration reads before binding it and nothing reads after
the loop is not carried by the graph's tf.while_loop (transform/control_flow.py's
`fresh`, graphgen/exits.py); every other name is. Each test compares janus with plain
Python call by call; the structural ones after that."""
import ast

import tensorflow as tf

import janus
from janus.transform import convert
from tests.differential import assert_same


def _fresh(fn) -> tuple:
    """The `fresh` argument (the last) of the function's (only) loop hook."""
    hooks = [node for node in ast.walk(ast.parse(convert(fn).code))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
             node.func.attr in ("for_stmt", "while_stmt")]
    assert len(hooks) == 1
    return ast.literal_eval(hooks[0].args[-1])


def _loop_inputs(jitted) -> int:
    spec = jitted.specializations[-1]
    whiles = [op for op in spec.concrete.graph.get_operations()
              if op.type in ("While", "StatelessWhile")]
    assert whiles, "no tf.while_loop in the graph"
    return len(whiles[0].inputs)


def scratch_only(x, n):
    h = x
    out = []
    for t in range(n):
        scratch = h * 0.5 + 1.0      # bound before any read: not carried
        h = h + scratch * 0.1
        done = tf.reduce_sum(h) > 20.0
        if done:
            break
        out.append(h)
    return h, out


def scratch_read_after(x, n):
    h = x
    out = []
    for t in range(n):
        scratch = h * 0.5 + 1.0
        h = h + scratch * 0.1
        done = tf.reduce_sum(h) > 20.0
        if done:
            break
        out.append(h)
    return h, out, scratch, t      # read after the loop: carried (its value at the exit)


def _calls():
    return [(tf.constant([v, v]), n) for v, n in
            ((1.0, 8), (2.0, 30), (0.5, 3), (9.0, 30), (3.0, 1), (1.5, 30), (30.0, 5),
             (0.1, 30), (2.5, 12))]


def test_names_read_only_after_their_binding_are_fresh():
    assert set(_fresh(scratch_only)) == {"t", "scratch", "done"}
    assert _fresh(scratch_read_after) == ("done",)


def test_an_uncarried_name_changes_no_result_and_the_loop_carries_less():
    stats = assert_same(scratch_only, _calls())
    assert stats.graph_calls >= 4
    assert_same(scratch_read_after, _calls())
    lean, full = janus.jit(scratch_only), janus.jit(scratch_read_after)
    for x, n in _calls():
        lean(x, n)
        full(x, n)
    assert _loop_inputs(lean) < _loop_inputs(full)


def bound_on_some_iterations(x, n, flag):
    h = x
    for t in range(n):
        w = h * 0.5
        if flag:
            w = w + 1.0
        h = h + w * 0.1
        if tf.reduce_max(h) > 6.0:
            break
    return h


def test_a_name_bound_on_some_paths_only():
    calls = [(tf.constant([v, v]), n, f) for v, n, f in
             ((1.0, 9, True), (1.0, 9, False), (5.0, 40, True), (0.3, 2, False),
              (0.2, 40, True), (6.5, 4, False), (2.0, 40, False))]
    assert_same(bound_on_some_iterations, calls)


def read_by_a_closure(x, n):
    h = x
    last = x * 0.0

    def peek():
        return last * 2.0          # reads `last` when called, in the next iteration
    for t in range(n):
        h = h + peek() * 0.01 + 0.5
        last = h - 1.0
        if tf.reduce_sum(h) > 12.0:
            break
    return h


def read_by_the_previous_iterations_lambda(x, n):
    h = x
    later = lambda: h * 0.0        # noqa: E731
    for t in range(n):
        h = h + later() * 0.1 + 0.5
        w = h * 3.0
        later = lambda: w * 1.0    # noqa: E731  (reads this iteration's `w` next time)
        if tf.reduce_sum(h) > 12.0:
            break
    return h


def test_names_a_closure_reads_stay_carried():
    assert "last" not in _fresh(read_by_a_closure)
    assert "w" not in _fresh(read_by_the_previous_iterations_lambda)
    assert_same(read_by_a_closure, _calls())
    assert_same(read_by_the_previous_iterations_lambda, _calls())


def reads_its_frame(x, n):
    h = x
    for t in range(n):
        w = h * 0.5
        h = h + w
        if tf.reduce_sum(h) > 12.0:
            break
    return h, sorted(k for k in locals() if not k.startswith("janus"))


def test_a_function_that_reads_its_locals_carries_every_name():
    assert _fresh(reads_its_frame) == ()


def counted_while(x):
    i = tf.constant(0)
    h = x
    while i < 7:
        i = i + 1                  # the test reads `i`: carried
        w = h * 0.25
        h = h + w
        if tf.reduce_sum(h) > 15.0:
            break
    return h, i


def test_a_while_loop_carries_what_its_test_reads():
    fresh = _fresh(counted_while)
    assert "i" not in fresh and "w" in fresh
    assert_same(counted_while, [(tf.constant([v, v]),) for v in
                                (1.0, 0.1, 9.0, 2.0, 0.01, 5.0, 0.5, 3.0)])


def never_bound_then_read(x, xs):
    h = x
    for item in xs:
        w = item * 2.0
        h = h + w
        if tf.reduce_sum(h) > 10.0:
            break
    return h + w                   # UnboundLocalError after no iteration, as in Python


def test_zero_iterations_leave_the_name_unbound():
    one = [tf.constant([1.0, 1.0])]
    calls = [(tf.constant([1.0, 1.0]), one * k) for k in (3, 2, 5, 0, 4, 0, 1, 6)]
    assert_same(never_bound_then_read, calls)
