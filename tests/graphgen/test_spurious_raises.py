"""A generalized graph that raises where plain Python does not (a loop's body after its
exit test, run speculatively in the iteration the test stops: graphgen/exits.py) counts
as a failed generation after `guard_failures.SPURIOUS_RAISES` such calls: janus retreats to
the unrolled, guarded loop; a test whose outcome then keeps changing, with its general
graph blocked, gives up after `outcomes.BLOCKED_REGENERATIONS` graphs within
`BLOCKED_WINDOW` calls instead of making a graph per outcome; one that changes seldom
keeps a graph per outcome. Before, every call ran
the general graph, failed, and ran plainly: slower than plain Python, forever."""
import tensorflow as tf

from janus import outcomes
from tests.differential import assert_same

TABLE = tf.range(10.0) * 2.0


def lookup_until_negative(x):
    out = []
    for i in range(8):
        tok = tf.cast(x[i], tf.int32)
        if tok < 0:
            break
        out.append(tf.gather(TABLE, tok))  # tok is -1 where the loop stops
    return tf.stack(out)


def _stops_at(*positions):
    calls = []
    for p in positions:
        values = [float(j % 9) for j in range(8)]
        values[p] = -1.0
        calls.append((tf.constant(values),))
    return calls


def test_a_loop_stopping_at_the_same_place_runs_unrolled_graphs():
    stats = assert_same(lookup_until_negative, _stops_at(*[3] * 12))
    assert stats.graph_calls >= 5 and stats.generations <= 3, stats


def test_a_loop_stopping_anywhere_gives_up_without_a_graph_per_outcome():
    stats = assert_same(lookup_until_negative, _stops_at(*[2, 3, 4, 5] * 6))
    assert stats.generations <= 2 + outcomes.BLOCKED_REGENERATIONS, stats
    # (not a failed graph call and a plain rerun per call: the function runs as it is)
    assert stats.fallback_reasons.get("guard failure", 0) <= 8, stats.fallback_reasons


class Log:
    def __init__(self):
        self.seen = []


def branch_with_a_heap_write(s, x):
    if tf.reduce_sum(x) > 0:
        s.seen.append(1)  # (a heap write: this `if` cannot be a tf.cond)
        y = x * 2.0
    else:
        y = x - 1.0
    return y


def test_a_test_that_flips_seldom_keeps_a_graph_per_outcome():
    calls = [(tf.constant([1.0, 2.0]) * (1.0 if (k // 15) % 2 == 0 else -1.0),)
             for k in range(60)]
    stats = assert_same(branch_with_a_heap_write, calls, make_state=Log)
    assert stats.graph_calls >= 40, stats
