"""`janus.jit(...)` called inside the training loop, a new jitted function per iteration
for the same code (janus/remade.py, F382): each profiled and generated afresh, 80x slower
than plain, without a word. Now janus warns once per code object, naming the function and
its line, and later ones run their first calls plainly (no profiling, no generation);
results stay plain Python's. Jitted functions that stay in use (a factory's) or run many
calls each are not warned about."""
import warnings

import tensorflow as tf

import janus
from janus import remade
from janus.function import JanusWarning


def make_step(scale):
    def step(x):
        return tf.reduce_sum(x * scale)
    return step


def _janus_warnings(caught):
    return [w for w in caught if issubclass(w.category, JanusWarning)]


def _loop(make, iterations, calls_each):
    x = tf.constant([1.0, 2.0])
    generations = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(iterations):
            fn = make(i)
            f = janus.jit(fn)
            for _ in range(calls_each):
                assert float(f(x)) == float(fn(x))
            generations += janus.stats(f).generations
            del f
    return generations, _janus_warnings(caught)


def test_f382_jit_made_in_the_loop_warns_once():
    generations, said = _loop(lambda i: make_step(float(i % 3)), 40, 4)
    assert len(said) == 1, [str(w.message) for w in said]
    message = str(said[0].message)
    assert "make_step.<locals>.step" in message and "outside the loop" in message
    assert f"{__file__}:{make_step.__code__.co_firstlineno + 1}" in message, message
    assert said[0].filename == __file__  # (the user's line: where janus.jit is called)
    assert generations >= 1  # (each one profiles and generates: the warning says so)


def test_f382_a_lambda_jitted_in_the_loop_warns_once():
    x = tf.constant([3.0])
    generations = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(30):
            f = janus.jit(lambda t: t * 2.0 + 1.0)
            for _ in range(3):
                assert float(f(x)[0]) == 7.0
            generations += janus.stats(f).generations
    said = _janus_warnings(caught)
    assert len(said) == 1 and "<lambda>" in str(said[0].message), said
    assert generations >= 1


def make_other(scale):
    def other(x):
        return tf.reduce_sum(x * scale + 1.0)
    return other


def test_f382_jitted_functions_kept_in_use_are_not_warned_about():
    x = tf.constant([1.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = [janus.jit(make_other(float(i))) for i in range(remade.REMADE + 4)]
        for f in made:
            for _ in range(4):
                f(x)
    assert not _janus_warnings(caught)
    assert all(janus.stats(f).graph_calls >= 1 for f in made)


def make_third(scale):
    def third(x):
        return tf.reduce_sum(x * scale - 1.0)
    return third


def test_f382_jitted_functions_each_called_many_times_are_not_warned_about():
    generations, said = _loop(lambda i: make_third(float(i)), remade.REMADE + 2,
                              remade.FEW + 4)
    assert not said, [str(w.message) for w in said]
    assert generations >= remade.REMADE + 2
