"""A checkpoint saved or restored inside a jitted function (graphgen/refusals.
checkpoint_reason, F363): `manager.save()`, `ckpt.write(path)`, `model.save_weights(path)`
write files and read the variables' values once, while janus traces; TF's own code
failed there with an internal-looking AttributeError. Refused up front with that
reason; the calls run plainly and save what plain Python saves."""
import contextlib
import io
import os
import tempfile

import keras
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3]))
        self.checkpoint = tf.train.Checkpoint(w=self.w)
        self.manager = tf.train.CheckpointManager(self.checkpoint, tempfile.mkdtemp(),
                                                  max_to_keep=2)
        self.model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="ones")],
                                      name="model")
        self.i = 0
        self.saved = []


def _explained(jitted, *args) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        janus.explain(jitted, *args)
    return out.getvalue()


def save_every_third_step(s, x):
    s.w.assign_sub(0.1 * x)
    s.i += 1
    if s.i % 3 == 0:
        path = s.manager.save(checkpoint_number=s.i)
        s.saved.append(os.path.basename(path))
    return tf.reduce_sum(s.w)


def write_and_save_weights(s, x):
    s.w.assign_add(x)
    s.checkpoint.write(os.path.join(s.manager.directory, "w"))
    s.model.save_weights(os.path.join(s.manager.directory, "m.weights.h5"))
    return tf.reduce_sum(s.model(x[None]))


def test_checkpoint_manager_save_in_the_step():
    jitted = janus.jit(save_every_third_step)
    assert_same(save_every_third_step, [(tf.constant([1.0, 2.0, 0.5]),)] * 10, State,
                jitted=jitted)
    state = State()
    state.i = 2
    text = _explained(jitted, state, tf.ones([3]))
    assert "saves a checkpoint (CheckpointManager.save)" in text, text
    assert "AttributeError" not in text, text


def test_checkpoint_write_and_save_weights_in_the_step():
    jitted = janus.jit(write_and_save_weights)
    assert_same(write_and_save_weights, [(tf.constant([1.0, 2.0, 0.5]),)] * 4, State,
                jitted=jitted)
    text = _explained(jitted, State(), tf.ones([3]))
    assert "saves a checkpoint (Checkpoint.write)" in text, text
