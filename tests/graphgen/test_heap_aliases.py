"""Heap objects a call reads through two paths, or writes beside others of their type it
reads, are one object exactly where the trace saw them so (graphgen/tracer.py
`_heap_aliases`, an "aliases" guard; F183, the probes' round): a graph traced with the
argument being the dict the function also reads through its state ran for a copy of it
(the write to the copy was read back from the original). Each test compares janus with
plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


class Box:
    def __init__(self):
        self.v = tf.constant(0.0)


class State:
    def __init__(self):
        self.table = {"w": tf.constant(1.0)}
        self.box = Box()
        self.other = Box()


def _work(y):
    for _ in range(8):  # (enough work that janus makes a graph of it)
        y = tf.tanh(y * 1.01 + 0.1)
    return y


def write_argument_read_state(s, d, x):
    d["w"] = d["w"] + x
    return _work(s.table["w"])


class Lookup:
    """Passes a dict through `assert_same` uncopied (it copies dicts in arguments)."""

    def __init__(self, table):
        self.table = table


def write_through_argument_read_state(s, box, x):
    return write_argument_read_state(s, box.table, x)


def test_an_argument_that_is_the_state_s_dict_on_some_calls_and_a_copy_on_others():
    calls = [(lambda s, i=i: (s, Lookup(s.table if i % 3 else dict(s.table)), tf.constant(1.0)))
             for i in range(12)]
    assert assert_same(write_through_argument_read_state, calls, State).graph_calls > 0


def write_one_read_other(s, a, b, x):
    a.v = a.v + x
    return _work(b.v * 2.0)


def test_two_arguments_that_are_one_object_on_some_calls():
    calls = [(lambda s, i=i: (s, s.box, s.box if i % 2 else s.other, tf.constant(1.0)))
             for i in range(10)]
    assert assert_same(write_one_read_other, calls, State).graph_calls > 0
