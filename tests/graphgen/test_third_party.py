"""A third-party package's code in a trace (graphgen/third_party.py, F430) and a tf.data
iterator advanced eagerly while janus traces (graphgen/eager_iterators.py, F431): state
janus cannot see would move once, while tracing, and never when the graph runs."""
import argparse
import sys

import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.library_modules import library_module

_IDS = '''
import itertools

import tensorflow as tf

_COUNTER = itertools.count()
_STATE = {"n": 0}


def next_id():
    return next(_COUNTER)


def bump():
    _STATE["n"] += 1


def bumped():
    return _STATE["n"]


def _ids():
    yield from itertools.count()


_GENERATED = _ids()


def from_generator():
    return next(_GENERATED)


def scale(x):
    return x * 2.0


class Take:
    """A loader: each call takes the next item of its iterator."""

    def __init__(self):
        self.items = iter(range(1000))

    def __call__(self):
        next(self.items)

    def position(self):
        return next(self.items)


_ELEMENTS = iter(tf.data.Dataset.range(1000))


def take_element():
    with tf.init_scope():  # (eager, also while a graph is built)
        return int(next(_ELEMENTS))
'''


@pytest.fixture
def ids(tmp_path, monkeypatch):
    """The library module above (under a `site-packages` directory: not the program's)."""
    yield library_module(tmp_path, monkeypatch, "probe_ids", _IDS)
    sys.modules.pop("probe_ids", None)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A new copy of the library module per call (each side of a comparison its own
    module state): its functions, as the state `s.lib`."""
    made = []

    def make():
        made.append(f"probe_ids_{len(made)}")
        module = library_module(tmp_path, monkeypatch, made[-1], _IDS)
        return argparse.Namespace(lib=argparse.Namespace(**{
            name: getattr(module, name) for name in
            ("next_id", "from_generator", "take_element", "bump", "bumped")}))
    yield make
    for name in made:
        sys.modules.pop(name, None)


def _calls(n=8):
    return [(tf.constant([1.0, float(i)]),) for i in range(n)]


def _state_calls(n=8):
    return [lambda s, i=i: (s, tf.constant([1.0, float(i)])) for i in range(n)]


@pytest.mark.parametrize("name", ["next_id", "from_generator", "take_element"])
def test_a_library_function_s_hidden_state_moves_on_every_call(fresh, name):
    # (before: a graph folded the trace's answer in: [0, 1, 2, 2, 3, 2, 4, 2])
    def step(s, x):
        return x * float(getattr(s.lib, name)())
    assert_same(step, _state_calls(), make_state=fresh)


def test_a_library_function_s_effect_as_a_statement_is_made_on_every_call(fresh):
    def step(s, x):
        s.lib.bump()
        return tf.reduce_sum(x)
    assert_same(step, _state_calls(), make_state=fresh, observe=lambda s: s.lib.bumped())


def test_a_library_object_called_advances_its_iterator_on_every_call(ids):
    # (`loader()`: its class's `__call__` is the library's, as `loader.take()` is)
    def step(s, x):
        s.take()
        return tf.reduce_sum(x)
    assert_same(step, [lambda s, i=i: (s, tf.constant([float(i)])) for i in range(8)],
                make_state=lambda: argparse.Namespace(take=ids.Take()),
                observe=lambda s: s.take.position())


def test_a_trusted_package_s_functions_run_in_the_graph(ids, monkeypatch):
    def step(x):
        return ids.scale(x) + 1.0
    monkeypatch.setattr(janus.config, "trusted_packages", ("probe_ids",))
    stats = assert_same(step, _calls())
    assert stats.graph_calls >= 5, stats


def test_an_untrusted_package_s_call_is_a_graph_break_named_in_explain(ids):
    def step(x):
        y = tf.tanh(x) * 3.0
        return ids.scale(y) + tf.reduce_sum(y)
    jitted = janus.jit(step)
    assert_same(step, _calls(), jitted=jitted)
    assert "probe_ids.scale" in janus.explain(jitted)
    assert "trusted_packages" in janus.explain(jitted)


@pytest.mark.parametrize("value", ["einops", ["ok", 3], ("a.b",), 1, ("",)])
def test_trusted_packages_takes_top_level_names_only(value):
    with pytest.raises(TypeError, match="trusted_packages"):
        janus.config.trusted_packages = value
    assert janus.config.trusted_packages == ()


def test_trusted_packages_is_process_wide():
    with pytest.raises(TypeError, match="process-wide"):
        janus.jit(lambda x: x, trusted_packages=("einops",))
