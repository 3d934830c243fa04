"""Traces another thread disturbed (F372: a change of state while it ran is nobody's for
sure; the trace's graph runs its call and is not kept): janus retries them less and less
often (inconclusive_tries.py `inconclusive_wait`), never gives up for good (F384). A thread that
wakes now and then (a progress bar's monitor, a heartbeat) leaves a function with graphs
once a try is lucky; one that always runs costs O(log calls) profiled calls (F470: a
try whose library call counts while the thread runs is profiled, not traced)."""
import argparse
import sys
import threading
import warnings

import pytest
import tensorflow as tf

import janus
from janus import generation
from tests.differential import assert_same
from tests.library_modules import library_module
from tests.threads_helpers import counted, meet_each_call

_MEETING = '''
MEET = {}  # id of a Meeting -> the Barrier it meets another thread at


class Meeting:
    """Meets another thread when on (a library's progress monitor: counts its meetings)."""

    def __init__(self, barrier):
        MEET[id(self)] = barrier
        self.on, self.meetings = True, 0

    def __call__(self):
        if self.on:
            self.meetings += 1
            MEET[id(self)].wait()
            MEET[id(self)].wait()
'''


@pytest.fixture
def meeting(tmp_path, monkeypatch):
    """A library module (under a `site-packages` directory: not the program's code) the
    program trusts (its objects' calls run in a trace: graphgen/third_party.py)."""
    monkeypatch.setattr(janus.config, "trusted_packages", ("probe_meeting",))
    yield library_module(tmp_path, monkeypatch, "probe_meeting", _MEETING)
    sys.modules.pop("probe_meeting", None)


def step(s, x, sync):
    sync()  # (a library call, also while janus traces: the worker runs in it)
    return tf.reduce_sum(x * s.w)


def _side(module):
    """Per side: a worker thread the step's `sync` meets (it runs a little Python that
    touches nothing of the step's, once per call)."""
    barrier, current = threading.Barrier(2, timeout=120), [0]
    worker = threading.Thread(target=meet_each_call, daemon=True, args=(
        barrier, current, lambda: sum(range(1000))))
    worker.start()
    s = argparse.Namespace(w=tf.Variable(2.0), sync=module.Meeting(barrier))
    _WORKERS[id(s.sync)] = (current, barrier, worker)  # (not the compared heap's)
    return s


_WORKERS: dict = {}


def _calls(n: int, disturbed: int) -> list:
    """`n` calls (`state -> arguments`); the worker meets the first `disturbed` of them
    (and ends after)."""
    def call(i):
        def args(s):
            current, barrier, worker = _WORKERS[id(s.sync)]
            current[0] = i
            if i == disturbed:
                s.sync.on = False
                current[0] = None
                barrier.wait()  # (the worker returns)
                worker.join(timeout=120)
            return (s, tf.constant([float(i), 1.0]), s.sync)
        return args
    return [call(i) for i in range(n)]


def _seen(s):
    return s.sync.meetings


def test_traces_a_thread_disturbed_now_and_then_end_with_graphs(meeting):
    # (a thread ran during the first traces, 10 calls; janus gave up on the function for
    # good after 4 such traces: eager forever, for a thread's timing)
    stats = assert_same(step, _calls(40, 10), make_state=lambda: _side(meeting),
                        observe=_seen)
    assert stats.graph_calls >= 20, stats
    assert stats.generations >= 1


def test_a_thread_always_disturbing_costs_log_calls_traces(meeting, monkeypatch):
    traces = counted(monkeypatch, generation, "generate")
    tries = counted(monkeypatch, generation.Generation, "after_thread_wait")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = janus.jit(step)
        s = _side(meeting)
        for args in _calls(201, 200):
            g(*args(s))
    # (tried at calls 2, 3, 5, 9, 17, 33, 65, 129: log2 of the calls, and never given
    # up on: a call after the thread stops would trace. Each try runs profiled, not
    # traced: its `sync` counts while the thread runs, and a failed trace's count could
    # not be told from the thread's, F470; before, each try traced, inconclusive)
    assert traces[0] == 0, traces
    assert 7 <= tries[0] <= 12, tries
    assert janus.stats(g).generations == 0
    assert s.sync.meetings == 200
    assert any("inconclusive" in str(w.message) for w in caught)
    assert "traces in a row" in janus.explain(g)
