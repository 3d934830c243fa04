"""A namedtuple made in the call and handed out of the graph (fallback/heap.py): returned,
stored on the heap, `_replace`d. It was refused ("a new Losses object escapes"), so the
whole function ran eagerly (zoo p25); now the write-back makes it anew from the graph's
outputs on every run. Each test compares janus with plain Python call by call."""
import collections
import typing

import tensorflow as tf

import janus
from tests.differential import assert_same

Losses = collections.namedtuple("Losses", ["data", "reg", "total"])


class Stats(typing.NamedTuple):
    loss: object
    steps: int = 0


class State:
    def __init__(self):
        self.history = []
        self.last = None
        self.n = 0


def step(s, x):
    s.n += 1
    data = tf.reduce_mean(tf.square(x))
    reg = tf.reduce_sum(x) * 1e-3
    losses = Losses(data, reg, data + reg)
    s.history.append(losses._replace(total=None))
    s.last = Stats(losses.total, s.n)
    return losses, (Stats(data), [losses.reg])


def test_namedtuples_made_in_the_call_are_returned_and_stored():
    jitted = janus.jit(step)
    calls = [(tf.constant([1.0 + i, -0.5 * i]),) for i in range(10)]
    stats = assert_same(step, calls, make_state=State, jitted=jitted)
    assert stats.internal_errors == 0 and stats.graph_calls >= 6, stats
    state = State()
    result = jitted(state, calls[0][0])
    assert type(result[0]) is Losses and type(state.last) is Stats, (result, state.last)
    again = jitted(state, calls[0][0])
    assert again[0] is not result[0] and state.history[0] is not state.history[1]
