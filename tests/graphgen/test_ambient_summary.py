"""tf.summary's ambient state set outside the jitted step (session 28, probes, F250): the
default writer, `tf.summary.experimental.set_step(int)`, `tf.summary.record_if(bool)` and
a `record_if(callable)`: the TF2 guide's `with tf.summary.record_if(step % 100 == 0):
train_step()` (with `tf.summary.write`, which `tf.summary.scalar` calls: TensorBoard is
not installed here). The events written are plain Python's, call by call."""
import glob
import os
import tempfile

import tensorflow as tf

import janus
from tests.differential import assert_same


_DIRS: dict = {}  # (each side's own log directory, kept out of the compared heap)


class Logs:
    def __init__(self):
        logdir = _DIRS[id(self)] = tempfile.mkdtemp()
        self.writers = [tf.summary.create_file_writer(os.path.join(logdir, name))
                        for name in ("train", "val")]
        self.every = 3


def events(s) -> list:
    """(writer, step, tag, value) of every event written so far."""
    found = []
    for writer in s.writers:
        writer.flush()
    for path in sorted(glob.glob(os.path.join(_DIRS[id(s)], "*", "events*"))):
        for record in tf.data.TFRecordDataset(path):
            event = tf.compat.v1.Event.FromString(record.numpy())
            for value in event.summary.value:
                found.append((os.path.basename(os.path.dirname(path)), event.step, value.tag,
                              float(tf.make_ndarray(value.tensor).ravel()[0])))
    return sorted(found)


def step(x):
    tf.summary.write("x", tf.reduce_sum(x))  # (what tf.summary.scalar calls)
    return x * 2.0


def _around(inner, recording):
    def call(s, i, x):
        tf.summary.experimental.set_step(i)
        with s.writers[i % 2].as_default(), tf.summary.record_if(recording(s, i)):
            return inner(x)
    return call


def _same(recording, n=10):
    jitted = janus.jit(step)
    try:
        return assert_same(_around(step, recording), [(i, tf.constant([float(i)]))
                                                      for i in range(n)],
                           Logs, jitted=_around(jitted, recording), stats_of=jitted,
                           observe=events)
    finally:
        tf.summary.experimental.set_step(None)


def test_the_writer_step_and_record_if_set_outside_the_step():
    stats = _same(lambda s, i: i != 7)
    assert stats.graph_calls >= 4


def test_a_record_if_callable_made_outside_the_step():
    def recording(s, i):
        if i == 5:
            s.every = 2
        return lambda: i % s.every == 0
    _same(recording)
