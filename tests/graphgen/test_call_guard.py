"""A graph is only used for calls passing the arguments it was traced with: as many
positional ones and the same keywords (fuzz generator v17, seed 490629: `vh7(acc, *xs)`
with one more item in `xs` ran the graph traced for one item, which ignored it)."""
import tensorflow as tf

import janus
from tests.differential import Call, assert_same


def varargs(*args, **kwargs):
    total = args[0]
    for a in args[1:]:
        total = total + a
    for key in sorted(kwargs):
        total = total * kwargs[key]
    return total


def defaults(x, y=1.0, **kw):
    return x * y + sum(kw.values())


X = tf.constant([1.0, 2.0])


def test_one_more_positional_argument_is_not_ignored():
    calls = [Call(X, X, b=0.5)] * 4 + [Call(X, X, X, b=0.5)] * 2 + [Call(X, X, b=0.5),
                                                                  Call(X, b=0.5), Call(X)]
    stats = assert_same(varargs, calls)
    assert stats.graph_calls >= 3


def test_a_keyword_the_trace_left_to_its_default_is_not_ignored():
    calls = [(X,)] * 4 + [Call(X, y=3.0), Call(X, 3.0), Call(X, z=1.0), (X,), Call(X, y=3.0)]
    stats = assert_same(defaults, calls)
    assert stats.graph_calls >= 3


def test_the_guard_is_said_and_first():
    jitted = janus.jit(varargs)
    for _ in range(4):
        jitted(X, X, b=0.5)
    text = jitted.specializations[0].guards.describe()
    assert text[0] == "the call passes 2 positional argument(s) and keywords b"
