"""Code that runs when an object dies (graphgen/finalizers.py, F435; F436): an object of
a class with the program's `__del__` made in the step, a weak reference with a callback;
plain Python runs the finalizer once per call, a graph would make no object."""
import weakref

import tensorflow as tf

from tests.differential import assert_same

X = tf.constant([1.0, 2.0])


class State:
    def __init__(self):
        self.freed = 0

    def on_death(self, _ref):
        self.freed += 1


class Scratch:
    def __init__(self, state, value):
        self.state, self.value = state, value

    def __del__(self):
        self.state.freed += 1


class Node:
    pass


def test_an_object_with_a_del_made_in_the_step():
    # (before: 5 graph calls, `freed` 1, 2, 2, 3, 3, ... where Python counts 1, 2, 3, ...)
    def step(s, x):
        t = Scratch(s, x * 2.0)
        y = t.value
        del t
        return y + float(s.freed)
    assert_same(step, [(X,)] * 8, make_state=State)


def test_a_weak_reference_with_a_callback_made_in_the_step():
    # (before: graphs, then a split run whose objects died at the next collection)
    def step(s, x):
        n = Node()
        r = weakref.ref(n, s.on_death)
        del n
        return x * float(s.freed) + (1.0 if r() is None else 0.0)
    assert_same(step, [(X,)] * 8, make_state=State)


def test_weakref_finalize_in_the_step():
    def step(s, x):
        n = Node()
        weakref.finalize(n, s.on_death, None)
        del n
        return x * float(s.freed)
    assert_same(step, [(X,)] * 8, make_state=State)


def test_a_plain_run_lets_the_call_s_objects_die_on_return():
    """F436: a call janus ran plainly (here: split at `time.time()`) kept its arguments
    alive until the next garbage collection (janus's own frame referred to itself): a
    batch's `__del__` ran late, never before the next call (before: `freed` 0 on every
    call from the third)."""
    import time

    def step(s, batch, x):
        if time.time() < 0:
            print("never")
        return x * float(s.freed) + batch.value

    assert_same(step, [lambda s: (s, Scratch(s, 1.0), X)] * 8, make_state=State)


def test_a_logging_call_in_a_converted_run_lets_the_call_s_objects_die_on_return():
    """F436: converted code's logging call (transform/user_frames.call: its stacklevel)
    held its own frame, the same cycle (before: `freed` 0, 0, 2, 2, 2, ...)."""
    import logging

    log = logging.getLogger("janus.tests.finalizers")
    log.addHandler(logging.NullHandler())
    log.propagate = False

    def step(s, batch, x):
        y = x * float(s.freed) + batch.value
        log.warning("step %s", s.freed)
        return y

    assert_same(step, [lambda s: (s, Scratch(s, 1.0), X)] * 8, make_state=State)
