"""Library calls that change the program's state while another thread runs Python are
refused before any trace (janus/profiler/thread_writes.py, F470): a trace's own change
could not be told from the thread's, and a failed trace's plain rerun made it again."""
import argparse
import sys
import threading

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus import generation
from tests.library_modules import library_module
from tests.threads_helpers import counted, meet_each_call

_COUNTER = '''
class Counter:
    def __init__(self):
        self.count = 0

    def add(self, sync):
        self.count += 1
        sync()  # (another thread runs Python here, touching nothing of the program's)
        sync()
'''


@pytest.fixture
def counter(tmp_path, monkeypatch):
    yield library_module(tmp_path, monkeypatch, "probe_counter", _COUNTER)
    sys.modules.pop("probe_counter", None)


def counting_step(s, x, sync):
    y = tf.reduce_sum(x) * s.w
    tf.nest.map_structure(s.c.add, sync)  # (a library call: counts in Python)
    return np.asarray(y) + float(s.c.count)  # (a trace fails here: the call runs plainly)


def _run(counter, jit) -> tuple:
    """Five calls while a monitor-like thread runs Python during each `add`."""
    s = argparse.Namespace(c=counter.Counter(), w=tf.Variable(1.0))
    meet, current, beats = threading.Barrier(2, timeout=120), [0], []
    thread = threading.Thread(target=meet_each_call,
                              args=(meet, current, lambda: beats.append(1)))
    thread.start()
    g = jit(counting_step)
    out = []
    try:
        for i in range(5):
            current[0] = i
            out.append(float(g(s, tf.constant([float(i)]), meet.wait)))
    finally:
        current[0] = None
        meet.wait()
        thread.join(timeout=300)
    assert not thread.is_alive()
    return out, s.c.count, g


def test_a_count_made_while_another_thread_runs_is_made_once(counter, monkeypatch):
    # (before: the first trace's `count += 1` was kept, its window disturbed, and the plain
    # rerun counted again: counts one ahead of plain Python's from the third call)
    traces = counted(monkeypatch, generation, "generate")
    tries = counted(monkeypatch, generation.Generation, "after_thread_wait")
    plain_out, plain_count, _ = _run(counter, lambda f: f)
    out, count, g = _run(counter, janus.jit)
    assert (out, count) == (plain_out, plain_count)
    assert traces[0] == 0 and tries[0] >= 1  # (the tries ran profiled)


def test_without_other_threads_nothing_is_refused_up_front(counter):
    s = argparse.Namespace(c=counter.Counter(), w=tf.Variable(1.0))
    g = janus.jit(counting_step)
    plain_s = argparse.Namespace(c=counter.Counter(), w=tf.Variable(1.0))
    for i in range(4):
        x = tf.constant([float(i)])
        assert float(g(s, x, lambda: None)) == float(counting_step(plain_s, x, lambda: None))
    assert s.c.count == plain_s.c.count
    assert janus.stats(g).generations + janus.stats(g).generation_failures >= 1  # (traced)
