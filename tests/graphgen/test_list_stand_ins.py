"""A list janus holds as a stand-in (a list of varying length fed stacked, a list only
appended to) written by item, extended with `+=` or concatenated: Python's own TypeError
from janus's class was taken for the user's error and janus gave up on the function; a
refused trace instead makes janus keep the list specialized. Every test compares janus
with plain Python call by call."""
import tensorflow as tf

import janus
from tests.differential import assert_same


class History:
    def __init__(self):
        self.hist = [tf.constant(0.0)]
        self.log = []


def accumulate(s, x):
    s.hist[-1] += x
    if len(s.log) % 3 == 2:
        s.hist.append(tf.constant(0.0))
    s.log += [1]
    return s.hist[-1] * 2.0


def test_an_item_written_and_a_list_extended_in_place():
    jitted = janus.jit(accumulate)
    stats = assert_same(accumulate, [lambda s, i=i: (s, tf.constant(float(i)))
                                     for i in range(12)], make_state=History, jitted=jitted)
    # (`s.log`'s length is fed, plan.fed_lengths: the test on it flips every third call,
    # and its branch appends to `s.hist`, which a tf.cond cannot: a graph per outcome)
    assert stats.graph_calls >= 4, stats
    # (janus's refusal, not a TypeError of its stand-in taken for the program's)
    reason = jitted.last_failure_reason
    assert reason and "TypeError" not in reason, reason
