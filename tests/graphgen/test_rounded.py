"""`round()` of a number janus feeds or reads from a tensor (graphgen/rounded.py).

`s.decays.append(round(decay, 4))` with `decay` computed from a step counter kept the
counter guarded (a graph per step, zoo p46), and `s.hist.append(round(float(loss), 3))`
was a graph break. Python rounds a float to decimal digits exactly, which no TF op
does: a rounded number only stored, returned or printed is rounded after the run, by
Python (or numpy, for `round(t.numpy(), 2)`) itself. `round(x)` of a fed float is an int
in the graph. Each test compares janus with plain Python call by call."""
import numpy as np
import tensorflow as tf

import janus
from janus import source
from janus.transform import breaks
from tests.differential import assert_same


class State:
    def __init__(self):
        self.hist, self.k, self.best, self.d = [], 0, None, {}


def _x(i):
    return tf.constant([1.0 + i, 2.0 - i, 0.5 * i])


def _calls(n=10):  # (rates whose roundings tie or land on .5 in binary and decimal)
    return [(_x(i), 0.125 * i + 0.0625 + (1e-9 if i % 3 == 0 else 0.0)) for i in range(n)]


def stored(s, x, lr):
    s.k += 1
    loss = tf.reduce_mean(tf.square(x)) * lr
    s.hist.append(round(float(loss), 3))
    s.best = round(loss.numpy(), 2)
    s.d[s.k] = round(lr * 1.5, 4)
    print("lr", round(lr, 2), round(lr), round(-lr))
    return loss, round(lr / 3, 5), round(s.k, 2)


def test_a_rounded_number_only_stored_returned_or_printed_is_one_graph():
    jitted = janus.jit(stored)
    stats = assert_same(stored, _calls(), make_state=State, jitted=jitted)
    assert stats.internal_errors == 0 and stats.generations <= 3, stats
    assert stats.graph_calls + stats.plain_calls >= 6, stats
    assert "number args[2] is fed as a scalar tensor" in jitted.plan.describe(), jitted.plan


def renamed(s, x, lr):
    loss = tf.reduce_sum(x) * lr
    r = round(float(loss), 3)
    s.hist.append(r)
    v = loss.numpy()
    s.best = round(v, 1)
    return [round(float(loss)), r]


def test_a_rounded_read_assigned_to_a_name_then_stored():
    stats = assert_same(renamed, _calls(), make_state=State)
    assert stats.internal_errors == 0 and stats.graph_calls + stats.plain_calls >= 6, stats


def computed_with(s, x, lr):
    r = round(lr, 2)
    s.hist.append(r > 0.3)
    s.hist.append(f"{r}")
    return x * r


def decided_on(s, x, lr):
    r = round(float(tf.reduce_sum(x)), 1)
    if r > 2:
        return x
    return -x


def handed_to_tf(s, x, lr):
    return tf.constant(round(lr, 2)) + tf.reduce_sum(x), [max(round(lr, 3), 0.1)]


def test_a_rounded_number_used_otherwise_refuses_as_before():
    for fn in (computed_with, decided_on, handed_to_tf):
        stats = assert_same(fn, _calls(), make_state=State)
        assert stats.internal_errors == 0, (fn.__name__, stats)


def test_rounding_reads_are_kept_only_where_the_value_is_stored():
    def kept(s, x):
        s.a = round(x.numpy(), 2)
        s.hist.append(round(float(x)))
        r = round(float(x), 1)
        print(r)
        return round(x.numpy())

    def not_kept(s, x):
        r = round(float(x), 1)
        q = round(x.numpy(), 2)
        return r + 1.0, q > 2

    for fn, expected in ((kept, 4), (not_kept, 0)):
        node, _ = source.parse_function(fn)
        assert len(breaks.in_graph_reads(node, fn.__globals__)) == expected, fn.__name__


def test_numpy_rounds_a_numpy_scalar():
    # (numpy's round of a float32 is numpy's, not Python's: both sides give np.float32)
    def numpy_round(s, x):
        s.best = round(tf.reduce_sum(x).numpy(), 3)
        return x
    stats = assert_same(numpy_round, [(tf.constant([v, 0.3333]),) for v in
                                      np.linspace(0.1, 2.0, 10, dtype=np.float32)],
                        make_state=State)
    assert stats.internal_errors == 0, stats
