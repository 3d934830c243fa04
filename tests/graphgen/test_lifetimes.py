"""When a call's objects die (F437: F440, F441): as in plain Python, on return, not at
the next garbage collection.

A batch whose `__del__` counts (`s.freed`) is passed to a step that reads the count:
plain Python frees each call's batch as the call returns, so call k reads k. janus's
machinery must not keep it in a reference cycle (a trace's watch and its tracers, a
frame keeping itself through `sys._current_frames()`, a closure calling itself, a frame
keeping an exception it caught). The collector is off during each test, so a cycle is
seen every time, not when a collection happens to run."""
import pytest
import tensorflow as tf

from tests.differential import assert_same
from tests.freed import Freed as Batch

X = tf.constant([1.0, 2.0])
pytestmark = pytest.mark.usefixtures("no_collector")


class State:
    def __init__(self):
        self.freed = 0
        self.buf = None


def batches(values):
    return [lambda s, v=v: (s, Batch(s, v), X) for v in values]


def test_a_traced_call_s_arguments_die_on_return():
    # (before: `freed` 0, 1, 2, 2, 2, ...: the trace's call kept its arguments in a cycle
    # of its watch and tracers, and of other_threads' frame)
    def step(s, batch, x):
        return x * float(s.freed) + batch.value

    stats = assert_same(step, batches([1.0] * 8), make_state=State)
    assert stats.graph_calls > 0


def test_a_retraced_call_s_arguments_die_on_return():
    """Guard failures: a trace per new shape (before: the second trace's arguments lived
    on: `chosen_input`'s closure called itself)."""
    def step(s, batch, x):
        return x * float(s.freed) + tf.reduce_sum(batch.value)

    shapes = [tf.ones([k % 3 + 1]) for k in range(9)]
    stats = assert_same(step, batches(shapes), make_state=State)
    assert stats.graph_calls > 0


def test_a_call_whose_trace_raised_lets_its_arguments_die():
    """A trace that raised the call's own error (the call then runs plainly): before,
    the trace's exception kept the frames of janus that held it, and the arguments."""
    def step(s, batch, x):
        if s.freed % 3 == 2:
            raise ValueError("every third call")
        return x * float(s.freed) + batch.value

    # (not assert_same: it keeps each call's exception until the next call has run, so
    # plain Python's batch lives on too)
    import janus
    assert _seen(janus.jit(step), [1.0] * 8) == _seen(step, [1.0] * 8)


def _seen(fn, values) -> list:
    """Each call's result (or the name of its exception), and `freed` after it."""
    s, seen = State(), []
    for value in values:
        try:
            seen.append(float(tf.reduce_sum(fn(s, Batch(s, value), X))))
        except Exception as exc:  # noqa: BLE001 - compared by type
            seen.append(type(exc).__name__)
        seen.append(s.freed)
    return seen


def test_a_failed_graph_call_lets_its_arguments_die():
    """A graph whose assertion fails: janus's frame kept the graph's exception (before:
    `freed` behind from the failed call on)."""
    def step(s, batch, x):
        tf.debugging.assert_less(tf.reduce_sum(x) * batch.value, 10.0)
        return x * float(s.freed) + batch.value

    stats = assert_same(step, batches([1.0, 1.0, 1.0, 1.0, 5.0, 1.0, 5.0, 1.0, 1.0]),
                        make_state=State)
    assert stats.graph_calls > 0


def test_a_kept_exception_holds_no_more_than_plain_python_s():
    """The caller keeps each call's exception (a retry log): plain Python's keeps the
    step's frame; janus's kept janus's frames too, and what they held (before: the
    replaced `s.buf` of successful calls lived on)."""
    import janus

    def step(s, batch, x):
        y = x * float(s.freed)
        s.buf = batch
        tf.debugging.assert_less(tf.reduce_sum(x), batch.value)
        return y

    def keeping(fn, kept):
        def run(*args):
            try:
                return fn(*args)
            except Exception as exc:
                kept.append(exc)
                raise
        return run

    values = [5.0, 0.0] * 5
    plain_kept, janus_kept = [], []
    assert _seen(keeping(janus.jit(step), janus_kept), values) == \
        _seen(keeping(step, plain_kept), values)
