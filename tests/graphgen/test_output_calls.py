"""Output other than `print` in a traced function (graphgen/refusals.output_reason): a
logger's records, `sys.stdout.write`, a stream's `write` were made once, while tracing
(the call's own record twice, a `%d` of janus's stand-in an error), and never when the
graph ran. That code now runs in Python. Every test compares janus with plain Python call
by call (records kept in the state, printed output)."""
import logging
import sys

import tensorflow as tf

from tests.differential import assert_same


class ToStdout(logging.Handler):
    """Writes each record to the stdout of the moment (the test compares what is printed)."""

    def emit(self, record):
        sys.stdout.write(self.format(record) + "\n")


LOG = logging.getLogger("janus-test-output-calls")
LOG.propagate = False
LOG.setLevel(logging.INFO)
LOG.addHandler(ToStdout())


class Trainer:
    def __init__(self):
        self.n = 0


def logged(t, x):
    t.n += 1
    LOG.warning("step %d of %s", t.n, "training")
    LOG.debug("not shown %d", t.n)
    return x * t.n


def written(t, x):
    t.n += 1
    sys.stdout.write(f"step {t.n};")
    return x * t.n


def test_a_logger_s_records():
    assert_same(logged, [lambda t: (t, tf.constant([1.0, 2.0]))] * 6, make_state=Trainer)


def test_writes_to_stdout():
    assert_same(written, [lambda t: (t, tf.constant([1.0, 2.0]))] * 6, make_state=Trainer)
