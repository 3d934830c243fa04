"""Ops that print or write outside TensorFlow run only after every guard of the graph
held (graphgen/external_effects.py, F180): when a guard fails, plain Python reruns the
call, so a line `tf.print` printed before it, or an event `tf.summary.write` wrote, came
out twice. Each test compares janus with plain Python call by call, and what was printed
or written after every call."""
import glob
import os
import sys
import tempfile

import tensorflow as tf
from tensorflow.core.util import event_pb2

import janus
from tests.differential import assert_same


_PATHS = {}


class Log:
    """A variable, a list and a log file (its path not on the heap: it differs per side)."""

    def __init__(self):
        handle, _PATHS[id(self)] = tempfile.mkstemp(suffix=".log")
        os.close(handle)
        self.w = tf.Variable(1.0)
        self.hist = []

    @property
    def path(self):
        return _PATHS[id(self)]

    def text(self):
        with open(self.path) as f:
            return f.read()


def print_then_test(s, x):
    loss = tf.reduce_sum(x * s.w)
    tf.print("loss", loss, output_stream="file://" + s.path)
    if loss > 3.0:                      # a guard janus asserts in the graph
        s.w.assign(s.w * 0.5)
        tf.print("shrunk", s.w, output_stream="file://" + s.path)
    return loss


def _xs(n):
    return [(tf.constant([float(i % 5), 1.0]),) for i in range(n)]


def test_a_print_before_a_failing_guard_prints_once():
    stats = assert_same(print_then_test, _xs(12), Log, observe=Log.text)
    assert stats.graph_calls > 0


def print_in_a_loop(s, xs):
    total = tf.zeros([])
    for x in xs:
        total = total + x
        tf.print("step", total, output_stream="file://" + s.path)
    if total > 3.0:
        s.hist.append("big")
    return total


def test_prints_of_an_unrolled_loop_wait_for_the_guard_after_it():
    calls = [([tf.constant(1.0), tf.constant(float(i % 4))],) for i in range(10)]
    stats = assert_same(print_in_a_loop, calls, Log, observe=Log.text)
    assert stats.graph_calls > 0


def printing_cond_read_by_a_test(s, x):
    def loud():
        tf.print("positive", x, output_stream="file://" + s.path)
        return x * 2.0
    y = tf.cond(x > 0.0, loud, lambda: x - 1.0)
    if y > 1.0:                         # the guard reads the printing cond's value
        s.hist.append(1)
    return y


def test_a_guard_reading_a_printing_op_refuses_the_graph():
    calls = [(tf.constant(float(v)),) for v in (1.0, 2.0, 0.3, -1.0, 3.0, 0.2, 2.0, -2.0)]
    assert_same(printing_cond_read_by_a_test, calls, Log, observe=Log.text)


def _events(directory):
    found = []
    for name in sorted(glob.glob(os.path.join(directory, "*"))):
        for record in tf.data.TFRecordDataset(name):
            event = event_pb2.Event.FromString(record.numpy())
            found += [(event.step, v.tag, tf.make_ndarray(v.tensor).tolist())
                      for v in event.summary.value]
    return found


def summaries(w, step, x, n):
    loss = tf.reduce_sum(x * w)
    tf.summary.write("loss", loss, step=step)
    if loss > 3.0:
        w.assign(w * 0.5)
        tf.summary.write("shrunk", w, step=step)
    step.assign_add(1)
    if n % 4 == 3:
        tf.summary.write("n", n, step=step)
    return loss


def test_summary_events_are_written_once():
    written = {}
    for side in ("plain", "janus"):
        directory = tempfile.mkdtemp()
        w, step = tf.Variable(1.0), tf.Variable(0, dtype=tf.int64)
        fn = janus.jit(summaries) if side == "janus" else summaries
        writer = tf.summary.create_file_writer(directory)
        with writer.as_default():
            losses = [float(fn(w, step, tf.constant([float(i % 5), 1.0]), i))
                      for i in range(12)]
        writer.flush()
        written[side] = (losses, float(w), int(step), _events(directory))
        if side == "janus":
            assert janus.stats(fn).graph_calls > 0
    assert written["janus"] == written["plain"]


def _captured_fd1(fn, *args) -> str:
    """What `fn(*args)` wrote to file descriptor 1, Python's `sys.stdout` writing there
    too, unbuffered (tf.print writes to the descriptor itself)."""
    sys.stdout.flush()
    saved, sink, stdout = os.dup(1), tempfile.TemporaryFile(), sys.stdout
    os.dup2(sink.fileno(), 1)
    sys.stdout = open(1, "w", closefd=False, buffering=1)
    try:
        fn(*args)
    finally:
        sys.stdout.flush()
        sys.stdout = stdout
        os.dup2(saved, 1)
        os.close(saved)
    sink.seek(0)
    return sink.read().decode()


def print_both(x):
    print("py")
    tf.print("tf", x, output_stream=sys.stdout)
    if tf.reduce_sum(x) > 2.0:
        x = x * 2.0
    return x


def test_tf_print_keeps_its_place_among_python_prints_and_prints_once():
    """The probes' round: in graph calls the graph's line came before the call's Python
    print (deferred after the run), and twice where a guard failed: `tf.print` in the
    function's own graph is now deferred alike and run eagerly after it."""
    jitted = janus.jit(print_both)
    for value in [0.0, 1.0, 1.5, 0.5, 3.0, 4.0, 1.0]:
        x = tf.constant(value)
        assert _captured_fd1(jitted, x) == _captured_fd1(print_both, x), value
    assert janus.stats(jitted).graph_calls > 0


def print_then_own_assert(s, x):
    loss = tf.reduce_sum(x * s.w)
    tf.print("loss", loss, output_stream="file://" + s.path)
    tf.debugging.Assert(loss < 4.5, [loss])    # the program's own: fails on some calls
    return loss


def _checked(loss):
    with tf.control_dependencies([tf.debugging.assert_less(loss, 4.5)]):
        return tf.identity(loss)


def summary_then_assert_in_a_cond(s, x):
    loss = tf.reduce_sum(x * s.w)
    with s.writer.as_default():
        tf.summary.write("loss", loss, step=s.step)
    s.step.assign_add(1)
    return tf.cond(loss > 0.5, lambda: _checked(loss), lambda: loss)


class Events(Log):
    """A log with a summary writer (its directory not on the heap either)."""

    def __init__(self):
        super().__init__()
        _PATHS[(id(self), "events")] = tempfile.mkdtemp()
        self.writer = tf.summary.create_file_writer(_PATHS[(id(self), "events")])
        self.step = tf.Variable(0, dtype=tf.int64)

    def events(self):
        self.writer.flush()
        return _events(_PATHS[(id(self), "events")])


def test_a_print_before_the_program_s_failing_assertion_prints_once():
    """F307: an assertion of the program's failed after the graph printed; the plain
    rerun printed again (the event or line twice)."""
    stats = assert_same(print_then_own_assert, _xs(14), Log, observe=Log.text)
    assert stats.graph_calls > 0, stats
    stats = assert_same(summary_then_assert_in_a_cond, _xs(14), Events, observe=Events.events)
    assert stats.graph_calls > 0, stats
