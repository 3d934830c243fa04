"""A test on a fed counter whose generalization is blocked (heap or print effects in its
branch: `if step % 4 == 0: print(...)`) keeps a graph per outcome: both graphs stay, and
a call whose outcome the first one does not hold runs the other (zoo10-F62); before,
the failing graph was dropped and traced again at every change of outcome."""
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.step = 0
        self.total = tf.Variable(0.0)


def log_every_4(s, x):
    s.total.assign_add(tf.reduce_sum(x))
    s.step += 1
    if s.step % 4 == 0:
        print("step", s.step)
        s.total.assign(0.0)
    return x * 2.0


def test_both_outcomes_keep_their_graphs():
    calls = [(tf.constant([1.0, float(i)]),) for i in range(40)]
    stats = assert_same(log_every_4, calls, make_state=State)
    assert stats.generations <= 5, stats
    assert stats.graph_calls >= 28, stats
