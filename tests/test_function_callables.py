"""`janus.jit` of callables that are not plain functions (jit_api.py `jit`): a
`functools.partial` jits its function (its arguments bound at each call, nested partials
too) and runs graphs like it; `staticmethod`/`classmethod`/`partialmethod` objects jit
their function; a callable without Python source (`operator.mul`, `np.add`, a C type's
`__call__`) runs as it is with the reason recorded, never an internal error (F369)."""
import functools
import operator

import numpy as np
import tensorflow as tf

import janus
from tests.differential import Call, assert_same


def scaled(x, scale, shift=0.0):
    return x * scale + shift


def xs(n=8):
    return [(tf.constant([float(i), 1.0]),) for i in range(n)]


def test_f369_a_partial_runs_graphs_like_its_function():
    fn = functools.partial(scaled, scale=2.0)
    jitted = janus.jit(fn)
    stats = assert_same(fn, xs(), jitted=jitted)
    assert stats.graph_calls >= 4 and stats.internal_errors == 0
    nested = functools.partial(functools.partial(scaled, shift=1.0), 3.0)
    jitted = janus.jit(nested)
    stats = assert_same(nested, xs() + [Call(tf.constant([1.0, 2.0]), shift=5.0)] * 4,
                        jitted=jitted)
    assert stats.graph_calls >= 4 and stats.internal_errors == 0


class Tagged(functools.partial):
    """(a partial with attributes: nested in another, it is not flattened)"""


def test_f369_a_partial_s_arguments_are_read_at_each_call():
    fn = functools.partial(scaled, scale=2.0)
    jitted = janus.jit(fn)
    for (x,) in xs(4):
        jitted(x)
    fn.keywords["shift"] = 10.0  # (the partial's own dict: plain Python sees the change)
    x = tf.constant([1.0, 2.0])
    assert np.allclose(jitted(x).numpy(), fn(x).numpy())
    inner = functools.partial(scaled, 2.0)
    inner.note = "kept"
    outer = functools.partial(inner, shift=1.0)  # (not flattened: `inner` has a dict)
    assert outer.func is inner
    stats = assert_same(outer, xs(), jitted=janus.jit(outer))
    assert stats.graph_calls >= 4


class Holder:
    @staticmethod
    def plus(x):
        return x + 1.0

    @classmethod
    def times(cls, x):
        return x * 2.0

    def mul(self, x, k):
        return x * k

    jitted_static = janus.jit(staticmethod(lambda x: x - 1.0))
    jitted_class = janus.jit(classmethod(lambda cls, x: x * 4.0))
    jitted_partial = janus.jit(functools.partialmethod(mul, k=5.0))
    plain_partial = functools.partialmethod(mul, k=5.0)


def test_f369_staticmethods_classmethods_and_partialmethods_jit_their_function():
    static = Holder.__dict__["plus"]  # (the staticmethod object itself)
    stats = assert_same(static, xs(), jitted=janus.jit(static))
    assert stats.graph_calls >= 4
    stats = assert_same(Holder.times, xs(), jitted=janus.jit(Holder.times))
    assert stats.graph_calls >= 4
    holder = Holder()
    for plain, jitted in [(lambda x: x - 1.0, holder.jitted_static),
                          (lambda x: x - 1.0, Holder.jitted_static),
                          (lambda x: x * 4.0, holder.jitted_class),
                          (lambda x: x * 4.0, Holder.jitted_class),
                          (holder.plain_partial, holder.jitted_partial)]:
        stats = assert_same(plain, xs(), jitted=jitted)
    assert janus.stats(Holder.__dict__["jitted_partial"]).graph_calls >= 4
    assert janus.stats(Holder.__dict__["jitted_class"]).graph_calls >= 4


class CallsAPartial:
    __call__ = functools.partial(lambda x: x + 7.0)  # (no `self`: a partial is no method)


def test_f369_callables_without_python_source_run_as_they_are():
    for fn, calls in [
            (operator.mul, [(tf.constant(float(i)), tf.constant(2.0)) for i in range(6)]),
            (np.add, [(np.float32(i), np.float32(1.0)) for i in range(6)]),
            (CallsAPartial(), xs(6)),
            (functools.partial(operator.add, tf.constant(1.0)), xs(6))]:
        jitted = janus.jit(fn)
        stats = assert_same(fn, calls, jitted=jitted)
        assert stats.internal_errors == 0 and stats.graph_calls == 0
        assert "has no Python source; it runs as it is" in janus._jitted(jitted).last_decision


class Sourceless:
    """Jitted callables without Python source, called by a jitted function."""
    add = janus.jit(np.add)
    mul = janus.jit(operator.mul)


def calls_jitted_sourceless(x, n):
    # (in a trace `n` is a number the graph is fed: the jitted np.add is np.add's call,
    # not a jitted function's given the trace's stand-in)
    return Sourceless.mul(x, Sourceless.add(float(n), 0.5))


def test_f369_a_jitted_callable_without_source_called_in_a_graph_is_its_own_call():
    calls = [(tf.constant([1.0, 2.0]), n) for n in range(8)]
    stats = assert_same(calls_jitted_sourceless, calls)
    assert stats.internal_errors == 0
