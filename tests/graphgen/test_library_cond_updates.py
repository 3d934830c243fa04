"""A variable a library updates inside its own `tf.cond` branch (a Keras optimizer with
`use_ema` and `ema_overwrite_frequency`: `ops.cond(..., lambda: v.assign(average))`):
janus's local copy of the variable would be a tensor of that branch's graph, out of scope
where the trace assigns its updates (it was an internal error; the call ran plainly).
The trace refuses; results and variables stay plain Python's.

Where the other branch reads that variable (Keras 3's LossScaleOptimizer.apply_gradients)
TensorFlow's "accessed from false_fn" ValueError made janus give the function up: the
read is refused too, so the step runs split with the rest as graphs (F466)."""
import keras
import numpy as np
import tensorflow as tf

import janus
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


class MixedPrecisionStep:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.model = keras.Sequential([keras.layers.Dense(4, activation="relu"),
                                       keras.layers.Dense(1)])
        self.model.build((None, 3))
        self.opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1))


def train_step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((s.model(x) - y) ** 2)
        scaled = s.opt.scale_loss(loss)
    grads = tape.gradient(scaled, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss


def _batches(n):
    rng = np.random.default_rng(0)
    return [(tf.constant(rng.normal(size=(5, 3)).astype(np.float32)),
             tf.constant(rng.normal(size=(5, 1)).astype(np.float32))) for _ in range(n)]


def test_loss_scale_optimizer_step_is_plain_and_split(any_size):
    stats = assert_same(train_step, _batches(10), make_state=MixedPrecisionStep)
    assert stats.segmented_calls >= 1 and stats.segment_graph_calls >= 1


def test_the_refusal_names_the_variable_and_the_line(capsys):
    jitted = janus.jit(train_step)
    s = MixedPrecisionStep()
    for x, y in _batches(4):
        jitted(s, x, y)
    janus.explain(jitted, s, *_batches(1)[0])
    shown = capsys.readouterr().out
    assert "a library's tf.cond or loop updates the variable" in shown
    assert "s.opt.apply_gradients(zip(grads, s.model.trainable_variables))" in shown
