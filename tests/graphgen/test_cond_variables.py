"""A tensor-valued `if` built as tf.cond may update variables (graphgen/general.py): the
local copies the branch traced first updates are carried out of the cond, the other
branch handing back the values they had. Compared with plain Python call by call."""
import tensorflow as tf

from differential import assert_same


def _limit(k):
    """A bound the test passes on even calls and fails on odd ones (it flips every call)."""
    return tf.constant(-1e9 if k % 2 == 0 else 1e9)


class Vars:
    def __init__(self):
        self.v = tf.Variable([1.0, -1.0])
        self.w = tf.Variable(0.5)


def update_in_one_branch(s, x, limit):
    y = tf.reduce_sum(s.v * x)
    if y > limit:
        s.v.assign_add(x * 0.5)
        s.w.assign(s.w * 2.0)
        y = y + s.w
    else:
        y = y - 1.0
    return y * s.w + tf.reduce_sum(s.v)


def test_variables_updated_in_a_branch_are_carried_out_of_the_cond():
    calls = [(tf.constant([1.0, float(k % 3) - 1.0]), _limit(k)) for k in range(10)]
    stats = assert_same(update_in_one_branch, calls, make_state=Vars)
    assert stats.generations == 1 and stats.graph_calls == 8, stats  # (2 profiled)


def different_variables(s, x, limit):
    if tf.reduce_sum(x) > limit:
        s.v.assign_add(x)
    else:
        s.w.assign_sub(1.0)
    return s.w + tf.reduce_sum(s.v)


def test_branches_updating_different_variables_stay_specialized():
    calls = [(tf.constant([1.0, float(k % 3) - 1.5]), _limit(k)) for k in range(10)]
    stats = assert_same(different_variables, calls, make_state=Vars)
    assert stats.graph_calls > 0, stats


def gradient_in_a_branch(s, x, limit):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(s.v * x - 1.0))
    if loss > limit:
        g = tape.gradient(loss, s.v)
        s.v.assign_sub(0.1 * g)
        loss = loss + tf.reduce_sum(g)
    return loss


def test_a_tape_gradient_in_a_branch_equals_eager():
    calls = [(tf.constant([float(k % 4), 0.5]), _limit(k)) for k in range(10)]
    stats = assert_same(gradient_in_a_branch, calls, make_state=Vars)
    assert stats.generations == 1 and stats.graph_calls == 8, stats
