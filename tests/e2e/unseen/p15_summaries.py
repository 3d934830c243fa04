"""TensorBoard logging in the step: a file writer's as_default(), tf.summary.write of the
loss every step and of a norm every other step (tf.summary.scalar needs the tensorboard
package, not installed here), keyed by a Python step counter; the events read back."""
import os
import tempfile

import numpy as np
import tensorflow as tf

GRAPHS = True
LOGDIRS = {}  # id(state) -> its log directory (the two sides' directories differ)


class State:
    def __init__(self):
        rng = np.random.RandomState(21)
        LOGDIRS[id(self)] = logdir = tempfile.mkdtemp(prefix="unseen-summary-")
        self.writer = tf.summary.create_file_writer(logdir)
        self.w = tf.Variable(rng.randn(3, 2).astype(np.float32))
        self.step_no = 0


def make_state():
    return State()


def step(s, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ s.w))
    g = tape.gradient(loss, s.w)
    s.w.assign_sub(0.1 * g)
    with s.writer.as_default():
        tf.summary.write("loss", loss, step=s.step_no)
        if s.step_no % 2 == 0:
            tf.summary.write("w_norm", tf.norm(s.w), step=s.step_no)
    s.step_no += 1
    return loss


def observe(s):
    """(tag, step, value) of every event written so far."""
    s.writer.flush()
    out = []
    logdir = LOGDIRS[id(s)]
    for name in sorted(os.listdir(logdir)):
        for e in tf.compat.v1.train.summary_iterator(os.path.join(logdir, name)):
            for v in e.summary.value:
                out.append((v.tag, e.step, round(float(tf.make_ndarray(v.tensor)), 5)))
    return out


def calls():
    rng = np.random.RandomState(22)
    return [(tf.constant(rng.randn(4, 3).astype(np.float32)),) for _ in range(8)]
