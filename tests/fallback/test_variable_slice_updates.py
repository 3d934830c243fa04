"""Every variable update inside a graph goes through janus's local copy of the variable
(janus/fallback/variables.py). Fuzz generator v15: `v[i].assign(...)` and
`v.scatter_nd_add(...)` went to the variable directly, before the guards held, and the
commit then overwrote them with the local copy (lost updates, stale reads)."""
import pytest
import tensorflow as tf

from tests.differential import assert_same

X = [(tf.constant([1.0, 2.0]), 2)] * 5


class State:
    def __init__(self):
        self.v = tf.Variable(tf.zeros([4]))


def _update(kind):
    def fn(s, x, n):
        for i in range(n):
            if kind == "slice":
                s.v[i % 4].assign(tf.reduce_mean(x) + float(i))
            elif kind == "range":
                s.v[1:3].assign(x * float(i + 1))
            elif kind == "scatter_nd_add":
                s.v.scatter_nd_add([[i % 4]], [tf.reduce_sum(x)])
            elif kind == "scatter_nd_update":
                s.v.scatter_nd_update([[i % 4]], [tf.reduce_max(x)])
            elif kind == "scatter_max":
                s.v.scatter_max(tf.IndexedSlices(x * float(i), [0, 3]))
            else:
                s.v.scatter_mul(tf.IndexedSlices(x, [0, 3]))
            s.v.assign(s.v * 0.5)
        return x + tf.reduce_sum(s.v)
    fn.__name__ = f"update_{kind}"
    return fn


@pytest.mark.parametrize("kind", ["slice", "range", "scatter_nd_add", "scatter_nd_update",
                                  "scatter_max"])
def test_partial_updates_go_through_the_local_copy(kind):
    stats = assert_same(_update(kind), X, make_state=State)
    assert stats.graph_calls >= 1, stats


def test_an_update_janus_does_not_model_runs_plainly():
    assert_same(_update("scatter_mul"), X, make_state=State)
