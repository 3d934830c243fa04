"""A logging record names the same caller under janus as in plain Python: a helper janus
runs as it is (it reads frames) logging with `stacklevel=2`, one asking `findCaller`
itself, a library's function logging for its caller, on every kind of run (F445)."""
import logging
import sys

import pytest
import tensorflow as tf

import janus
from tests.library_modules import library_module

LOG = logging.getLogger("janus_test_user_logging")


class Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.seen = []

    def emit(self, record):
        self.seen.append((record.module, record.lineno, record.funcName, record.getMessage()))


def frame_reading_helper(x):
    depth = sys._getframe(0).f_code.co_name  # (reads a frame: janus runs it as it is)
    LOG.warning("helper %s", depth, stacklevel=2)
    return x + 1.0


def asks_find_caller():
    path, line, name, _ = LOG.findCaller(False, 2)
    return line, name


_LIBRARY = '''
import logging


def report(value):
    logging.getLogger("janus_test_user_logging").warning("library", stacklevel=2)
    return value
'''


@pytest.fixture
def library(tmp_path, monkeypatch):
    yield library_module(tmp_path, monkeypatch, "probe_logs_for_caller", _LIBRARY)
    sys.modules.pop("probe_logs_for_caller", None)


def test_records_name_the_users_frames(library):
    def step(x, asked):
        y = frame_reading_helper(x * 2.0)
        asked.append(asks_find_caller())
        y = library.report(y)
        if tf.reduce_sum(y) > 0:
            LOG.warning("in the step", stacklevel=1)
        return y + float(tf.reduce_sum(y))  # (a graph break: split runs too)

    def run(fn):
        handler = Records()
        LOG.addHandler(handler)
        asked = []
        try:
            for i in range(6):
                fn(tf.constant([float(i)]), asked)
        finally:
            LOG.removeHandler(handler)
        return handler.seen, asked

    expected = run(step)
    assert expected[0][0][2] == "step" and expected[1][0][1] == "step"
    assert run(janus.jit(step)) == expected


def test_janus_s_own_records_name_janus_s_frames(monkeypatch):
    from janus import events
    from janus.config import config

    def failing(*args):
        raise ValueError("a listener's bug")
    handler = Records()
    own = logging.getLogger("janus")
    own.addHandler(handler)
    monkeypatch.setattr(config, "raise_internal_errors", False)
    events.subscribe("janus_test_user_logging", failing)
    try:
        events.emit("janus_test_user_logging")
    finally:
        events.unsubscribe("janus_test_user_logging", failing)
        own.removeHandler(handler)
    assert handler.seen[0][:3:2] == ("events", "emit")
