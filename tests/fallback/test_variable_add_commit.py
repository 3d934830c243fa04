"""An `assign_add`/`assign_sub` of a variable's own value that nothing reads afterwards is
committed as that update (fallback/variables.py `Added`: `AssignAddVariableOp`, eager's
kernel) instead of a read, an add and a whole assignment; a copy read later, a second
update, an update before a failing op keep the whole-copy commit's answers. Compared
with plain Python call by call."""
import collections

import keras
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Params:
    def __init__(self):
        self.w = tf.Variable([1.0, 2.0, 3.0])
        self.b = tf.Variable(0.5)
        self.steps = tf.Variable(0, dtype=tf.int64)
        self.emb = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))


def sgd_step(s, x, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((s.w * x + s.b) ** 2)
    gw, gb = tape.gradient(loss, [s.w, s.b])
    s.w.assign_sub(lr * gw)
    s.b.assign_add(-lr * gb)
    s.steps.assign_add(1)
    return loss


def read_after(s, x, lr):
    s.w.assign_add(x * lr)
    return tf.reduce_sum(s.w) * 2.0  # (reads the updated copy: committed whole)


def twice(s, x, lr):
    s.w.assign_add(x * lr)
    s.w.assign_sub(x)
    s.b.assign_sub(lr)
    return lr


def add_then_fail(s, x, lr):
    s.b.assign_add(lr)  # (plain Python updates it, then the gather raises: F305)
    s.w.assign_add(tf.gather(x, [0, 1, 5]))
    return lr


def _calls():
    good = [(tf.constant([0.5, -1.0, 2.0]), tf.constant(0.1)),
            (tf.constant([1.5, 0.25, -0.5]), tf.constant(0.01))]
    return [good[i % 2] for i in range(8)]


def _ops(fn, calls) -> collections.Counter:
    jitted, state = janus.jit(fn), Params()
    for args in calls:
        jitted(state, *args)
    spec = max(jitted.specializations, key=lambda s: s.calls)
    return collections.Counter(op.type for op in spec.concrete.graph.get_operations())


def test_unread_updates_are_committed_as_assign_add_and_sub():
    stats = assert_same(sgd_step, _calls(), Params)
    assert stats.graph_calls >= 5, stats
    ops = _ops(sgd_step, _calls())
    assert ops["AssignSubVariableOp"] == 1 and ops["AssignAddVariableOp"] == 2, ops
    assert ops["AssignVariableOp"] == 0, ops


def test_a_copy_read_after_its_update_is_committed_whole():
    stats = assert_same(read_after, _calls(), Params)
    assert stats.graph_calls >= 5, stats
    ops = _ops(read_after, _calls())
    assert ops["AssignVariableOp"] == 1 and ops["AssignAddVariableOp"] == 0, ops


def test_two_updates_of_one_variable_match_plain():
    assert_same(twice, _calls(), Params)
    ops = _ops(twice, _calls())
    assert ops["AssignVariableOp"] == 1 and ops["AssignSubVariableOp"] == 1, ops


def test_an_update_before_a_failing_op_changes_no_variable_in_the_graph():
    bad = (tf.constant([1.0, 2.0]), tf.constant(0.1))  # (index 5 past a 2-vector)
    calls = [(tf.constant([0.5, -1.0, 2.0, 4.0, 1.0, 3.0]), tf.constant(0.1))] * 5
    assert_same(add_then_fail, calls + [bad] + calls, Params)


class Net:
    def __init__(self):
        self.model = keras.Sequential([
            keras.Input((3,)),
            keras.layers.Dense(4, kernel_initializer=keras.initializers.GlorotUniform(1)),
            keras.layers.Dense(1, kernel_initializer=keras.initializers.GlorotUniform(2))])
        self.optimizer = keras.optimizers.SGD(0.05, momentum=0.9)
        self.optimizer.build(self.model.trainable_variables)


def keras_step(s, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((s.model(x) - y) ** 2)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.optimizer.apply_gradients(zip(grads, s.model.trainable_variables))
    return loss


def test_a_keras_momentum_step_updates_its_weights_by_assign_add():
    rng = np.random.default_rng(0)
    calls = [(tf.constant(rng.normal(size=(5, 3)), tf.float32),
              tf.constant(rng.normal(size=(5, 1)), tf.float32)) for _ in range(8)]
    jitted = janus.jit(keras_step)
    stats = assert_same(keras_step, calls, Net, jitted=jitted)
    assert stats.graph_calls >= 5, stats
    spec = max(jitted.specializations, key=lambda s: s.calls)
    ops = collections.Counter(op.type for op in spec.concrete.graph.get_operations())
    assert ops["AssignAddVariableOp"] >= 4, ops  # (the 4 weights: `variable += m`)
