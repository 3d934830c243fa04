"""What janus says when it cannot convert a function names the function, its file and the
line (a refusal raised with only its line known said `? (?:7)`), and `last_failure_reason`
says it too."""
import inspect

import tensorflow as tf

import janus
from janus.errors import cause_of

RATE = 0.5


def decay(x):
    global RATE
    RATE, scale = RATE * 0.9, 2.0  # (a tuple target of a global: refused)
    return x * RATE * scale


def test_a_refusal_names_the_function_file_and_line():
    global RATE
    jitted = janus.jit(decay)
    start = RATE
    for _ in range(3):  # (each side from the same RATE: the global is the heap compared)
        RATE = start
        expected = decay(tf.constant([1.0, 2.0]))
        after_plain, RATE = RATE, start
        actual = jitted(tf.constant([1.0, 2.0]))
        assert float(tf.reduce_sum(actual)) == float(tf.reduce_sum(expected))
        assert RATE == after_plain
        start = RATE
    line = decay.__code__.co_firstlineno + \
        inspect.getsource(decay).splitlines().index("    RATE, scale = RATE * 0.9, 2.0  # "
                                                   "(a tuple target of a global: refused)")
    where = f"decay ({__file__}:{line})"
    assert where in jitted.last_failure_reason, jitted.last_failure_reason


def test_cause_of_follows_causes_and_contexts_and_stops_on_a_cycle():
    class Wanted(Exception):
        pass

    inner = Wanted("inner")
    try:
        try:
            raise inner
        except Wanted:
            raise KeyError("wrapped")  # (context: inner)
    except KeyError as exc:
        outer = RuntimeError("outer")
        outer.__cause__ = exc
    assert cause_of(outer, Wanted) is inner
    assert cause_of(outer, (ValueError, KeyError)) is outer.__cause__
    looped = ValueError("a")
    looped.__context__ = TypeError("b")
    looped.__context__.__context__ = looped
    assert cause_of(looped, Wanted) is None
