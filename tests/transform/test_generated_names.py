"""Class: janus's generated code must compile and keep the user's names meaning what they
mean in plain Python (issue 9, failure 1).

The converted function used to be built inside a factory whose parameters were the
runtime (`janus__`) and the original's free variables: a nested `def` of converted code
(which closes over `janus__`) or a recursive helper (whose own name the factory bound)
produced `def janus__factory(janus__, ..., janus__)`: a SyntaxError on the first call.
Now nested defs stay the user's code, converted on their own when called, the converted
code is compiled under a reserved name and closes over the original's own cells, and
generated code that does not compile is a ConversionError (the call runs plainly).
"""
import tensorflow as tf

import janus
from janus.errors import ConversionError
from janus.transform import convert, pipeline
from tests.differential import assert_same


def c(value):
    return tf.constant(value, tf.float32)


def nested_closure_in_loop(x, xs):
    acc = x

    def inner(z):
        return z + tf.reduce_sum(acc) * len(xs)
    for _ in range(3):
        acc = inner(acc)
    return acc


def test_nested_def_closing_over_locals_called_in_a_loop():
    calls = [(c([1.0, 2.0]), [1, 2])] * 4 + [(c([0.5, 1.0]), [1])] * 3
    stats = assert_same(nested_closure_in_loop, calls)
    assert stats.graph_calls >= 3


def nested_with_control_flow(x, n):
    out = []

    def step(v, k):
        if k % 2 == 0:
            out.append(k)
            return tf.tanh(v)
        for _ in range(k):
            v = v * 0.5
        return v
    for k in range(n):
        x = step(x, k)
    return x, out


def test_nested_def_with_branches_loops_and_a_list_of_the_enclosing_function():
    calls = [(c([1.0, -2.0]), 3)] * 4 + [(c([1.0, -2.0]), 4)] * 3
    stats = assert_same(nested_with_control_flow, calls)
    assert stats.graph_calls >= 3


def base(a):
    return tf.reduce_sum(a) * 2.0


def rec(a, m):
    return base(a) if m <= 0 else rec(a, m - 1) + 1.0


def calls_recursive_helper(x, m):
    return rec(x, m)


def test_module_level_helper_recursing_on_a_python_int():
    calls = [(c([1.0, 2.0]), 2)] * 4 + [(c([3.0, 2.0]), 3)] * 3
    stats = assert_same(calls_recursive_helper, calls)
    assert stats.graph_calls >= 3


def countdown(x, m):
    """Recurses through the *global* name: rebinding the global must be seen."""
    return x if m <= 0 else countdown(x * 2.0, m - 1)


def _doubling(x, m):
    return x * 100.0


def calls_countdown(x, m):
    return countdown(x, m)


def _rebind(value):
    def entry(_state=None):
        globals()["countdown"] = value
        return (c([1.0]), 2)
    return entry


def test_recursive_helper_sees_its_global_name_rebound():
    original = countdown
    try:
        calls = [(c([1.0]), 2)] * 4 + [_rebind(_doubling)] * 2 + [_rebind(original)] * 2
        assert_same(calls_countdown, calls)
    finally:
        globals()["countdown"] = original


def nested_recursive(x, n):
    def walk(v, k):
        return v if k == 0 else walk(v + 1.0, k - 1)
    squares = [walk(x, k) for k in range(n)]
    scale = (lambda v: v * n)(x)
    return tf.add_n(squares) + scale


def test_nested_recursive_def_comprehension_and_lambda():
    calls = [(c([1.0, 2.0]), 3)] * 4 + [(c([1.0, 2.0]), 2)] * 2
    stats = assert_same(nested_recursive, calls)
    assert stats.graph_calls >= 3


class Counter:
    def __init__(self):
        self.total = tf.zeros([2])

    def add(self, x):
        def scaled(v):
            return v * self.scale()
        self.total = self.total + scaled(x)
        return self.total

    def scale(self):
        return 2.0


def method_with_nested_def(counter, x):
    return counter.add(x)


def test_method_with_nested_def_closing_over_self():
    calls = [(c([float(i), 1.0]),) for i in range(6)]
    stats = assert_same(method_with_nested_def, calls, make_state=Counter)
    assert stats.graph_calls >= 3


def test_generated_code_that_does_not_compile_is_a_conversion_error(monkeypatch):
    def broken(x):
        return x * 3.0

    def bad_module(node, freevars):
        import ast
        return ast.parse("def janus__factory(janus__, janus__):\n    pass\n")

    monkeypatch.setattr(pipeline, "_module", bad_module)
    try:
        convert(broken)
    except ConversionError as exc:
        assert "does not compile" in str(exc)
    else:
        raise AssertionError("generated code that does not compile was accepted")
    jitted = janus.jit(broken)
    assert_same(broken, [(c([1.0]),)] * 4, jitted=jitted)
    assert "does not compile" in janus.explain(jitted)


def test_names_reserved_for_janus_are_refused_not_miscompiled():
    def user(x):
        janus__ = 2.0
        return x * janus__
    try:
        convert(user)
    except ConversionError as exc:
        assert "janus__" in str(exc)
    else:
        raise AssertionError("a user name colliding with janus's was accepted")
    assert_same(user, [(c([1.0]),)] * 4)


class Shape:
    pass


def annotated(x: tf.Tensor, k: "Shape" = None, *, scale: float = 2.0) -> tf.Tensor:
    def inner(v: tf.Tensor) -> tf.Tensor:
        return v * scale
    return inner(x) + 1.0


def test_annotations_defaults_and_qualified_names_stay_the_originals():
    stats = assert_same(annotated, [(c([1.0, 2.0]),)] * 4)
    assert stats.graph_calls >= 2
    from janus.transform.runtime import Runtime
    converted = convert(annotated)
    instance = converted.instantiate(Runtime(converted))
    assert instance.__annotations__ == annotated.__annotations__
    assert instance.__qualname__ == annotated.__qualname__
    assert instance.__code__.co_name == "annotated"
