"""Helpers behind a user's `functools.wraps` decorator, and `@contextlib.contextmanager`
helpers. janus read a wrapper's source through `__wrapped__` (inspect follows it), found
the wrapped function's `def` and gave up on the whole calling function (it ran eagerly);
contextlib's wrapper of a user's generator was taken for user code (`functools.wraps`
gives it the user's module). Every test compares janus with plain Python call by call."""
import contextlib
import functools

import tensorflow as tf

from tests.differential import assert_same


class Counts:
    def __init__(self):
        self.calls = {}
        self.log = []


def counted(fn):
    @functools.wraps(fn)
    def wrapper(counts, *args, **kwargs):
        counts.calls[fn.__name__] = counts.calls.get(fn.__name__, 0) + 1
        return fn(*args, **kwargs)
    return wrapper


@counted
def squared_loss(x):
    return tf.reduce_mean(x * x)


def step(counts, x):
    return squared_loss(counts, x) + 1.0


def test_a_helper_behind_a_wraps_decorator_is_converted():
    stats = assert_same(step, [lambda c, i=i: (c, tf.constant([float(i), 2.0]))
                               for i in range(8)], make_state=Counts)
    assert stats.graph_calls >= 5, stats


@contextlib.contextmanager
def phase(counts, name):
    counts.log.append(name)
    try:
        yield len(counts.log)
    finally:
        counts.log.append("/" + name)


def phased(counts, x):
    with phase(counts, "forward") as depth:
        y = squared_loss(counts, x) * depth
    return y


def test_a_contextmanager_helper_runs_as_python_does():
    assert_same(phased, [lambda c, i=i: (c, tf.constant([float(i), 2.0])) for i in range(6)],
                make_state=Counts)
