"""Immutable default arguments a trace folds in (graphgen/defaults.py), guarded: a
helper's `__defaults__` or `__kwdefaults__` rebound (or a keyword default changed in
place) between calls kept the old default in the graph (F217). Each test compares janus
with plain Python call by call."""
import json

import pytest
import tensorflow as tf

import janus
from janus.cache import portable
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


# -- the jitted function's own defaults (F273) ---------------------------------------------

def own_scaled(x, k=2.0, *, b=0.0):
    return x * k + b


@janus.jit
def own_decorated(x, k=2.0, *, b=0.0):
    return x * k + b


class OwnModel:
    @janus.jit
    def step(self, x, k=2.0, *, b=0.0):
        return x * k + b

    def plain_step(self, x, k=2.0, *, b=0.0):
        return x * k + b


OWN_CHANGES = {
    "__defaults__": lambda f: setattr(f, "__defaults__", (10.0,)),
    "__defaults__ grown": lambda f: setattr(f, "__defaults__", (2.0, 7.0)),
    "__kwdefaults__": lambda f: setattr(f, "__kwdefaults__", {"b": 10.0}),
    "__kwdefaults__ item": lambda f: f.__kwdefaults__.__setitem__("b", 5.0),
    "__kwdefaults__ dropped": lambda f: setattr(f, "__kwdefaults__", None),
    "an equal int": lambda f: setattr(f, "__defaults__", (2,)),
}


def _restore(f):
    f.__defaults__, f.__kwdefaults__ = (2.0,), {"b": 0.0}


def _local():
    def scaled(x, k=2.0, *, b=0.0):
        return x * k + b
    return scaled


def _own_cases():
    """name -> (plain function, jitted, function whose defaults change, state or None)"""
    local = _local()
    return {
        "a global function": (own_scaled, janus.jit(own_scaled), own_scaled),
        "a decorated global": (own_decorated.fn, own_decorated, own_decorated.fn),
        "a function made in a function": (local, janus.jit(local), local),
        "a decorated method": (OwnModel.step.fn, OwnModel.step, OwnModel.step.fn),
        "a bound method": (OwnModel.plain_step, janus.jit(OwnModel().plain_step),
                           OwnModel.plain_step),
    }


@pytest.mark.parametrize("change", list(OWN_CHANGES))
@pytest.mark.parametrize("case", list(_own_cases()))
def test_the_jitted_functions_own_default_changed_between_calls_is_seen(case, change):
    plain, jitted, target = _own_cases()[case]
    method = case.endswith("method")
    bound = case == "a bound method"

    def call(i):
        if i == 5:
            OWN_CHANGES[change](target)
        x = tf.constant([1.0, float(i)])
        return (OwnModel(), x) if method and not bound else (x,)

    run = plain
    if bound:  # (the plain side calls the method on an instance too)
        run = lambda x: plain(OwnModel(), x)  # noqa: E731
    try:
        stats = assert_same(run, [lambda _, i=i: call(i) for i in range(10)],
                            make_state=lambda: None, jitted=jitted)
    finally:
        _restore(plain)
    assert stats.graph_calls >= (3 if "dropped" in change else 5), stats  # (then: TypeError)


def test_a_jitted_functions_defaults_are_the_functions():
    """`decorated.__defaults__ = ...` rebinds the function's, as without the decorator."""
    own_decorated.__defaults__ = (3.0,)
    own_decorated.__kwdefaults__ = {"b": 1.0}
    try:
        assert own_decorated.fn.__defaults__ == (3.0,)
        assert own_decorated.fn.__kwdefaults__ == {"b": 1.0}
        assert own_decorated.__defaults__ is own_decorated.fn.__defaults__
        for _ in range(4):
            assert float(own_decorated(tf.constant(1.0))) == 4.0
    finally:
        _restore(own_decorated.fn)


def test_the_own_defaults_a_call_passes_are_not_guarded():
    """A call that passes every argument uses no default: rebinding them keeps its graph."""
    def scaled(x, k=2.0):
        return x * k

    def call(i):
        if i >= 4:
            scaled.__defaults__ = (float(i),)
        return (tf.constant(1.0), 3.0)

    stats = assert_same(scaled, [lambda _, i=i: call(i) for i in range(10)],
                        make_state=lambda: None)
    assert stats.generations == 1 and stats.graph_calls >= 6, stats


def test_a_recorded_graph_is_not_loaded_where_the_own_defaults_differ():
    """Another process may bind other defaults (`def f(x, lr=LR)`): the record's guards
    hold the values its graph folded in."""
    jitted = janus.jit(own_scaled)
    x = tf.constant([1.0, 2.0])
    for _ in range(4):
        jitted(x)
    data = portable.export(jitted.specializations[0])
    assert data is not None
    data = json.loads(json.dumps(data))
    env = ((x,), {}, own_scaled.__globals__, ())

    def load():
        return portable.load(data, (x,), {}, env, 99, jitted.plan,
                             jitted.specializations[0].converted)

    try:
        assert load() is not None
        own_scaled.__defaults__ = (3.0,)
        assert load() is None
    finally:
        _restore(own_scaled)


def _breaks(x, scale=2.0, *, shift=0.5):
    x = x * scale + shift
    y = len(str(x.numpy()))  # (a graph break: runs split, or mixed)
    return x + y


@pytest.mark.parametrize("options", [{}, {"segments": False}], ids=["split", "mixed"])
def test_own_defaults_rebound_are_seen_by_a_split_or_mixed_function(options):
    """The split function's outer code and the mixed runner's converted function took the
    defaults once, when they were made (fallback/segmented.py, fallback/mixed.py)."""
    def call(i):
        if i == 3:
            _breaks.__defaults__ = (0.0,)
        if i == 5:
            _breaks.__kwdefaults__["shift"] = 3.0
        return (tf.constant([1.0, float(i)]),)

    try:
        stats = assert_same(_breaks, [lambda _, i=i: call(i) for i in range(10)],
                            make_state=lambda: None, **options)
    finally:
        _breaks.__defaults__, _breaks.__kwdefaults__ = (2.0,), {"shift": 0.5}
    assert stats.fallback_calls >= 6, stats  # (runs split, or mixed: `len(str(...))`)
