"""A variable a library updates inside its own `tf.cond` branch (a Keras optimizer with
`use_ema` and `ema_overwrite_frequency`: `ops.cond(..., lambda: v.assign(average))`):
janus's local copy of the variable would be a tensor of that branch's graph, out of scope
where the trace assigns its updates (it was an internal error; the call ran plainly).
The trace refuses; results and variables stay plain Python's."""
import keras
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.v = tf.Variable([1.0, 2.0])
        self.opt = keras.optimizers.SGD(0.1, use_ema=True, ema_overwrite_frequency=3)


def step(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(s.v * x)
    grads = tape.gradient(loss, [s.v])
    s.opt.apply_gradients(zip(grads, [s.v]))
    return loss


def branch_update(v, x):
    tf.cond(tf.reduce_sum(x) > 1.0, lambda: v.assign(x * 2.0), lambda: tf.identity(v))
    return v * 1.0


def test_an_optimizer_overwriting_with_its_moving_average_stays_plain_pythons():
    assert_same(step, [(tf.constant([1.0, float(i)]),) for i in range(8)], make_state=State)


def test_a_variable_assigned_inside_a_tf_cond_branch_the_program_builds():
    assert_same(branch_update, [lambda v, i=i: (v, tf.constant([0.5, float(i % 3)]))
                                for i in range(8)], make_state=lambda: tf.Variable([0.0, 0.0]))
