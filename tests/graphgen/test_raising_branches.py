"""A tensor test one of whose branches raises (`if loss > limit: raise Diverged(...)`)
is specialized to the branch that does not, and never generalized into a tf.cond
(transform/sites.Site.raises_when; zoo p86): the calls that raise fail the in-graph
guard and rerun plainly, which raises; the others keep running as graphs. janus
generalized the test after a few raising calls, traced the raise, failed, and gave up
on the function (2 of 60 calls as graphs). Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


class Diverged(Exception):
    pass


class Model:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3, 1]))
        self.clip = 1.0


def step(m, x):
    loss = tf.reduce_mean(tf.square(x @ m.w))
    if loss > 50.0:
        m.clip *= 0.5
        raise Diverged(f"loss {float(loss):.2f}")
    m.w.assign_sub(0.001 * tf.clip_by_norm(tf.ones_like(m.w), m.clip))
    return loss


def test_calls_that_do_not_raise_keep_running_as_graphs():
    calls = [(tf.ones([4, 3]) * (10.0 if i % 6 == 5 else 1.0),) for i in range(36)]
    stats = assert_same(step, calls, Model)
    assert stats.graph_calls >= 18, stats  # (the 6 raising calls rerun plainly)
