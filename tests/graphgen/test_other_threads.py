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
from tests.library_modules import library_module


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


@pytest.fixture
def long_switches():
    """A thread waiting for the interpreter's lock waits a second before it asks for it."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    yield
    sys.setswitchinterval(before)


@pytest.mark.skipif(other_threads._schedule(threading.get_native_id()) is None,
                    reason="no scheduler counts to read here")
def test_a_woken_thread_waiting_for_the_lock_did_not_run(long_switches):
    """F433's remainder: a thread woken from its wait moves its counts before it runs any
    Python, and reading the counts must not hand it the interpreter's lock."""
    release, started, ran = threading.Event(), [], []

    def target():
        started.append(threading.get_ident())
        release.wait()
        ran.append(len(ran))  # (Python: it runs only once it holds the lock)
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    _settled(started)
    window = other_threads.Window()
    release.set()  # (it wakes, and waits for the lock this thread holds)
    end = time.perf_counter() + 0.05
    while time.perf_counter() < end:  # (a trace's own work, holding the lock)
        sum(range(100))
    assert not window.disturbed() and ran == []
    time.sleep(0.01)  # (lets go of the lock: it runs)
    thread.join(timeout=60)
    assert ran == [0] and window.disturbed()


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


def _on_tensorflow_threads(work) -> tf.data.Dataset:
    """A dataset whose elements `work(i)` makes: Python TensorFlow runs on a thread of its
    own (one `threading` does not know; idle in C between elements), only as one is
    taken (no element made ahead)."""
    made = tf.data.Dataset.range(10 ** 6).map(lambda i: tf.py_function(work, [i], tf.int64))
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = False
    return made.with_options(options)


@pytest.mark.parametrize("make", ["py_function", "from_generator"])
def test_python_tensorflow_runs_on_its_own_threads_ran(make):
    """F413: `FuncRegistry.__call__` (what runs `tf.py_function`'s and `from_generator`'s
    Python on TensorFlow's threads) was never counted: the flag guarding its wrapping
    shared its name with a function defined later, so the wrapping never ran."""
    ran_on = []

    def work(i):
        ran_on.append(threading.get_ident())
        return i
    if make == "py_function":
        elements = iter(_on_tensorflow_threads(work))
    else:
        elements = iter(tf.data.Dataset.from_generator(
            lambda: (work(i) for i in range(3)), output_signature=tf.TensorSpec([], tf.int64)))
    window = other_threads.Window()
    next(elements)
    assert ran_on and threading.get_ident() not in ran_on  # (another thread's Python)
    assert window.disturbed()


_PULL = '''
import tensorflow as tf


class Pull:
    """Takes the next element of a dataset, eagerly (also while a graph is built)."""

    def __init__(self, iterator):
        self.iterator = iterator

    def __call__(self):
        with tf.init_scope():
            next(self.iterator)
'''


@pytest.fixture
def pull(tmp_path, monkeypatch):
    """The library's `Pull` (its module under a `site-packages` directory)."""
    yield library_module(tmp_path, monkeypatch, "probe_pull", _PULL).Pull
    sys.modules.pop("probe_pull", None)


def _tensorflow_thread_writes(jit, pull):
    """`f`'s library call takes an element of a dataset whose Python, on TensorFlow's own
    thread, adds 20 items to `per['b']` once per call of `f` (as a loader thread's work
    meets each step), which `f` reaches: those are the loader's, never undone (F372,
    F413)."""
    per, current, seen = {"a": [], "b": []}, [0], set()

    def work(i):
        if current[0] not in seen:
            seen.add(current[0])
            per["b"].extend([1] * 20)
        return i
    take = pull(iter(_on_tensorflow_threads(work)))

    def f(x, tag, sync):
        per[tag].append(1)
        sync()  # (a library call: runs as it is, also while janus traces)
        return x * 2.0
    g = jit(f)
    out = []
    for i in range(4):
        current[0] = i
        out.append(float(g(tf.constant([float(i)]), "a", take)[0]))
    return {tag: len(items) for tag, items in per.items()}, out, g


def test_a_tensorflow_threads_writes_during_a_trace_are_kept_and_not_blamed_on_it(pull):
    plain, plain_out, _ = _tensorflow_thread_writes(lambda f: f, pull)
    counts, out, g = _tensorflow_thread_writes(janus.jit, pull)
    assert counts == plain == {"a": 4, "b": 80}  # (before F413: 'b' 40, two traces' lost)
    assert out == plain_out
    reasons = " ".join(map(str, janus.stats(g).fallback_reasons)) + \
        str(g.last_failure_reason or "")
    assert "does not convert changed" not in reasons
