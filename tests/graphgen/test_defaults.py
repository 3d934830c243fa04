"""Immutable default arguments a trace folds in (graphgen/defaults.py), guarded: a
helper's `__defaults__` or `__kwdefaults__` rebound (or a keyword default changed in
place) between calls kept the old default in the graph (F217). Each test compares janus
with plain Python call by call."""
import pytest
import tensorflow as tf

from tests.differential import assert_same


def _helpers():
    def scaled(x, k=1.0, *, b=0.0):
        return x * k + b

    class Net:
        def fwd(self, x, k=2.0, *, b=1.0):
            return x * k + b

    return scaled, Net


class Helpers:
    def __init__(self):
        self.scaled, Net = _helpers()  # (one per side: their defaults are changed)
        self.net = Net()


CHANGES = {
    "__defaults__": lambda s: setattr(s.scaled, "__defaults__", (3.0,)),
    "__kwdefaults__": lambda s: setattr(s.scaled, "__kwdefaults__", {"b": 10.0}),
    "__kwdefaults__ item": lambda s: s.scaled.__kwdefaults__.__setitem__("b", 5.0),
    "a method's __defaults__": lambda s: setattr(type(s.net).fwd, "__defaults__", (4.0,)),
    "a method's __kwdefaults__": lambda s: setattr(type(s.net).fwd, "__kwdefaults__",
                                                   {"b": -1.0}),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_default_changed_between_calls_is_seen(name):
    change = CHANGES[name]

    def step(s, x):
        return s.scaled(x) + s.net.fwd(x)

    def call(s, i):
        if i == 4:
            change(s)
        return s, tf.constant([1.0, 2.0])

    stats = assert_same(step, [lambda s, i=i: call(s, i) for i in range(8)],
                        make_state=Helpers)
    assert stats.graph_calls >= 5, stats


def scaled_global(x, k=1.0):
    return x * k


def test_a_global_helper_s_defaults_rebound():
    def step(x):
        return scaled_global(x)

    def call(i):
        if i == 4:
            scaled_global.__defaults__ = (3.0,)
        return (tf.constant(1.0),)

    try:
        stats = assert_same(step, [lambda _, i=i: call(i) for i in range(8)],
                            make_state=lambda: None)
    finally:
        scaled_global.__defaults__ = (1.0,)
    assert stats.graph_calls >= 5, stats


def test_defaults_rebound_by_the_call_itself():
    def step(s, x, n):
        if n % 3 == 0:
            s.scaled.__defaults__ = (float(n),)
        return s.scaled(x)

    assert_same(step, [lambda s, i=i: (s, tf.constant(1.0), i) for i in range(8)],
                make_state=Helpers)
