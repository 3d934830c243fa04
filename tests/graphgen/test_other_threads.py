"""Whether another thread may have run Python during a trace (graphgen/other_threads.py
`Window`). A thread whose scheduler counts cannot be read (no /proc, a thread `_thread`
or a C library made) counts as run, unless it was blocked the whole time in a known
wait that runs no Python (F384: an idle such thread made every trace that changed state
inconclusive: no graph, ever)."""
import _thread
import argparse
import linecache
import sys
import threading
import time

import keras
import pytest
import tensorflow as tf

import janus
from janus.graphgen import other_threads
from tests.differential import assert_same


@pytest.fixture
def uncounted(monkeypatch):
    """Scheduler counts that cannot be read (as where /proc has none)."""
    monkeypatch.setattr(other_threads, "_schedule", lambda native_id: None)


def _foreign(target) -> threading.Event:
    """Runs `target(done)` on a thread `threading` does not know; `done` is set as it
    returns."""
    done = threading.Event()

    def run():
        try:
            target()
        finally:
            done.set()
    _thread.start_new_thread(run, ())
    return done


def _blocked_in(event: threading.Event, started: list):
    def target():
        started.append(threading.get_ident())
        event.wait()
    return target


def _settled(started: list) -> None:
    """Until the thread is blocked in its wait's lock (not merely about to be)."""
    for _ in range(100000):
        frame = sys._current_frames().get(started[0]) if started else None
        if frame is not None and frame.f_code is threading.Condition.wait.__code__ and \
                "waiter.acquire(" in linecache.getline(frame.f_code.co_filename,
                                                       frame.f_lineno):
            return
        time.sleep(0.001)
    raise AssertionError("the thread never settled in its wait")


@pytest.mark.parametrize("make", ["foreign", "threading"])
def test_a_thread_blocked_in_a_wait_all_along_did_not_run(uncounted, make):
    release, started = threading.Event(), []
    target = _blocked_in(release, started)
    if make == "foreign":
        done = _foreign(target)
    else:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        done = None
    _settled(started)
    window = other_threads.Window()
    sum(range(10000))  # (a trace's own work)
    assert not window.disturbed()
    window = other_threads.Window()
    release.set()  # (it returns from its wait, and ends)
    if done is not None:
        done.wait(timeout=60)
    else:
        thread.join(timeout=60)
    assert window.disturbed()


def test_a_thread_that_wakes_between_waits_ran(uncounted):
    stop, beat, started, beaten = [], threading.Semaphore(0), [], threading.Event()

    def heartbeat():  # (waits, wakes, runs a little Python, waits again)
        started.append(threading.get_ident())
        while True:
            beat.acquire()
            if stop:
                return
            beaten.set()
    done = _foreign(heartbeat)
    _settled(started)
    window = other_threads.Window()
    beat.release()  # (one beat: it returns from its wait, and waits again)
    assert beaten.wait(timeout=60)
    assert window.disturbed()
    stop.append(True)
    beat.release()
    done.wait(timeout=60)


def _progbar_state():
    return argparse.Namespace(pb=keras.utils.Progbar(20, verbose=0), w=tf.Variable(1.0))


def _progbar_seen(s):
    return s.pb._seen_so_far


def progbar_counts(s, x):
    loss = tf.reduce_mean(x * x) * s.w
    s.pb.add(1)
    return loss


def test_an_idle_uncounted_thread_leaves_traces_conclusive(uncounted):
    # (the trace changes the Progbar's count: with the idle thread taken as run, every
    # trace was inconclusive, and the counting line was never refused (split off); the
    # refusal now comes as without the thread: F314)
    release, started = threading.Event(), []
    done = _foreign(_blocked_in(release, started))
    _settled(started)
    try:
        calls = [(tf.constant([float(n), 1.0]),) for n in range(12)]
        g = janus.jit(progbar_counts)
        assert_same(progbar_counts, calls, make_state=_progbar_state, jitted=g,
                    observe=_progbar_seen)
    finally:
        release.set()
        done.wait(timeout=60)
    why = str(g.last_failure_reason)
    assert "again on the next call" in why and "another thread" not in why, why
