"""A tensor of the trace left in long-lived Python state by code janus does not convert
(F300, graphgen/leftover_tensors.py): a library calling `setattr` or a container's
method on an object of the heap while janus traces left the trace's symbolic tensor
there, where plain Python keeps an EagerTensor (every later read failed, "out of
scope"); the trace is refused and its changes undone, the call runs plainly."""
import argparse
import threading
import sys
import functools

import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.library_modules import library_module
from tests.threads_helpers import meet_each_call


class Box:
    def __init__(self):
        self.last = None
        self.log = []


class Holder(tf.Module):
    def __init__(self):
        super().__init__()
        self.box = Box()


def _state():
    return {"box": Box(), "w": tf.Variable(1.0)}


def setattr_by_a_library(s, x):
    y = x * s["w"]
    tf.nest.map_structure(functools.partial(setattr, s["box"], "last"), y)
    s["w"].assign_add(0.5)
    return y + 1.0


def test_an_attribute_a_library_sets_keeps_plain_python_s_value():
    calls = [(tf.constant([float(n), 2.0]),) for n in range(6)]
    assert_same(setattr_by_a_library, calls, make_state=_state)


def _module_state():
    return {"holder": Holder(), "w": tf.Variable(2.0)}


def module_attribute(s, x):
    y = x * s["w"]
    tf.nest.map_structure(functools.partial(setattr, s["holder"].box, "last"), y)
    return y


def test_an_attribute_of_an_object_a_module_holds():
    calls = [(tf.constant([float(n)]),) for n in range(6)]
    assert_same(module_attribute, calls, make_state=_module_state)


def _layer_state():
    layer = keras.layers.Dense(1, kernel_initializer="ones", name="dense_kept")
    layer(tf.zeros((1, 2)))
    return {"layer": layer}


def layer_attribute(s, x):
    y = s["layer"](x)
    tf.nest.map_structure(functools.partial(setattr, s["layer"], "cached"), y)
    return y


def test_a_keras_layer_s_attribute_set_by_a_library_is_readable_after_the_call():
    def run(fn, s):
        out = []
        for n in range(6):
            y = fn(s, tf.constant([[float(n), 1.0]]))
            out.append((y.numpy().tolist(), s["layer"].cached.numpy().tolist()))
        return out

    assert run(janus.jit(layer_attribute), _layer_state()) == \
        run(layer_attribute, _layer_state())


def steps_around_it(s, x):
    h = x
    for k in range(4):
        h = tf.tanh(tf.matmul(h, s["m"]) + float(k))
    tf.nest.map_structure(functools.partial(setattr, s["box"], "last"), h * 2.0)
    for k in range(4):
        h = tf.tanh(tf.matmul(h, s["m"]) - float(k))
    return tf.reduce_sum(h)


def _matrix_state():
    return {"box": Box(), "m": tf.Variable(tf.eye(32) * 0.5)}


def test_the_rest_of_the_step_still_runs_as_graphs(any_size):
    calls = [(tf.fill((16, 32), float(n)),) for n in range(12)]
    stats = assert_same(steps_around_it, calls, make_state=_matrix_state)
    assert stats.segment_graph_calls > 0  # (the line runs in Python, the rest as graphs)


# -- session 30 (F313-F315): other libraries' objects, plain changes, failed traces --

def _progbar_state():
    return argparse.Namespace(pb=keras.utils.Progbar(20, verbose=0), w=tf.Variable(1.0))


def _progbar_seen(s):
    values = {k: [float(v) for v in pair] for k, pair in s.pb._values.items()}
    return s.pb._seen_so_far, values


def progbar_in_a_namespace(s, x):
    loss = tf.reduce_mean(x * x) * s.w
    s.pb.update(3, values=[("loss", loss)])
    return loss


def test_a_library_object_held_by_another_library_s_object_is_reached():
    # (F313: an argparse.Namespace was not looked into: the Progbar kept the trace's
    # tensor, which janus found but could not undo; the next read failed)
    calls = [(tf.constant([float(n), 1.0]),) for n in range(6)]
    assert_same(progbar_in_a_namespace, calls, make_state=_progbar_state,
                observe=_progbar_seen)


def progbar_counts(s, x):
    loss = tf.reduce_mean(x * x) * s.w
    s.pb.add(1)
    return loss


def test_library_code_counting_in_python_while_traced_is_refused():
    # (F314: `Progbar.add` moved `_seen_so_far` once, in the trace; graphs never again)
    calls = [(tf.constant([float(n), 1.0]),) for n in range(6)]
    assert_same(progbar_counts, calls, make_state=_progbar_state, observe=_progbar_seen)


def progbar_counts_then_fails(s, x):
    loss = tf.reduce_mean(x * x) * s.w
    s.pb.add(1)
    return np.asarray(loss) + 1.0


def test_a_failed_trace_puts_back_what_library_code_changed():
    # (F315: the refused trace counted once, the plain rerun again: twice a call)
    calls = [(tf.constant([float(n), 1.0]),) for n in range(6)]
    assert_same(progbar_counts_then_fails, calls, make_state=_progbar_state,
                observe=_progbar_seen)


class Excluding:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.w = tf.Variable(tf.ones((2,)), name="bias")
        self.opt = keras.optimizers.AdamW(0.1, weight_decay=0.5)


def decayed_step(s, g):
    s.opt.apply_gradients([(g, s.w)])
    return s.w + 0.0


def test_a_cache_library_code_fills_while_traced_keeps_graphs():
    # (AdamW fills `_exclude_from_weight_decay_cache` once: added, not changed)
    calls = [(tf.constant([0.1, -0.1]) * n,) for n in range(10)]
    stats = assert_same(decayed_step, calls, make_state=Excluding)
    assert stats.graph_calls >= 5


# -- session 31 (F330, F331): a log library code adds to each call; the line that changed it

_STEPLOG = '''
class Logger:
    def __init__(self):
        self.history = {}

    def log(self, value):
        self.history[len(self.history)] = value


LOGGER = Logger()
'''


@pytest.fixture
def steplog(tmp_path, monkeypatch):
    """A library module (under a `site-packages` directory: not the program's code)."""
    yield library_module(tmp_path, monkeypatch, "probe_steplog", _STEPLOG)
    sys.modules.pop("probe_steplog", None)


def _logged(s):
    return sorted(s.lg.history.items()), sorted(s.module.LOGGER.history.items())


def test_a_log_library_code_adds_to_each_call_keeps_growing(steplog):
    # (F330: `self.history[len(self.history)] = v` by a library's bound method handed to
    # tf.nest, or by a library's object its module holds: taken for a cache filled once,
    # the trace added once and the graphs never again: plain 8 items, janus 5)
    def make():
        steplog.LOGGER = steplog.Logger()  # (per side)
        return argparse.Namespace(lg=steplog.Logger(), module=steplog, w=tf.Variable(1.0))

    def step(s, x):
        y = tf.reduce_sum(x) * s.w
        tf.nest.map_structure(s.lg.log, 1.0)
        return y

    def step_of_a_module_s_object(s, x):
        y = tf.reduce_sum(x) * s.w
        probe_steplog.LOGGER.log(2.0)
        return y

    probe_steplog = steplog  # (the global the function names)
    calls = [(tf.constant([float(n)]),) for n in range(8)]
    assert_same(step, calls, make_state=make, observe=_logged)
    assert_same(step_of_a_module_s_object, calls, make_state=make, observe=_logged)


def test_a_change_on_every_call_is_refused_at_its_line(any_size):
    # (F331: the refusal named the function's first line; the next trace finds which
    # library call changed it: that line runs in Python, the rest as graphs)
    def make():
        return {"look": keras.layers.StringLookup(vocabulary=["a", "b"]),
                "m": tf.Variable(tf.eye(16) * 0.5)}

    def step(s, x):
        h = tf.tanh(tf.matmul(x, s["m"]))
        h = tf.tanh(tf.matmul(h, s["m"]) + 1.0)
        h = tf.tanh(tf.matmul(h, s["m"]) + 2.0)
        s["look"].set_vocabulary(["a", "b", "c"])
        h = tf.tanh(tf.matmul(h, s["m"]) - 1.0)
        h = tf.tanh(tf.matmul(h, s["m"]) - 2.0)
        return tf.reduce_sum(h)

    calls = [(tf.fill((8, 16), float(n)),) for n in range(12)]
    fn = janus.jit(step)
    s = make()
    for x, in calls:
        fn(s, x)
    line = step.__code__.co_firstlineno + 4
    assert f"py:{line})" in janus.explain(fn)  # (the line, not the function's first)
    stats = assert_same(step, calls, make_state=make)
    assert stats.segment_graph_calls > 0



def _two_threads(jit):
    """Thread A's calls of `f` wait, inside the call (its third traced by janus), while
    thread B calls `f` 20 times (janus runs them plainly while A profiles or traces) and
    appends to `per['b']`, which A's trace reaches: B's appends are B's, never undone,
    and not taken as the trace's (F372)."""
    per = {"a": [], "b": []}
    meet, current = threading.Barrier(2, timeout=120), [0]

    def f(x, tag, sync):
        per[tag].append(1)
        sync()  # (a library call: runs as it is, also while janus traces)
        sync()  # (B ran in between)
        return x * 2.0
    g = jit(f)
    out = {"b": []}

    def b():  # (between A's `sync(); sync()`, once per call of A: its 20)
        out["b"] += [float(g(tf.constant([float(i)]), "b", int)[0]) for i in range(20)]
    thread = threading.Thread(target=meet_each_call, args=(meet, current, b))
    thread.start()
    out["a"] = []
    for i in range(3):
        current[0] = i
        out["a"].append(float(g(tf.constant([float(i)]), "a", meet.wait)[0]))
    current[0] = None
    meet.wait()
    thread.join(timeout=300)
    assert not thread.is_alive()
    return {tag: len(items) for tag, items in per.items()}, out, g


def test_another_threads_writes_during_a_trace_are_kept_and_not_blamed_on_it():
    plain, plain_out, _ = _two_threads(lambda f: f)
    for _ in range(3):  # (threads: several runs)
        counts, out, g = _two_threads(janus.jit)
        assert counts == plain == {"a": 3, "b": 60}
        assert out == plain_out
        reasons = " ".join(map(str, janus.stats(g).fallback_reasons)) + \
            str(g.last_failure_reason or "")
        assert "does not convert changed" not in reasons


# -- session 38 (F433): a disturbed trace that fails puts back its own library writes

_KEYLOG = '''
class Logger:
    def __init__(self):
        self.history = {}
        self.beats = []

    def put(self, key, value):
        self.history[key] = value

    def beat(self, value):
        self.beats.append(value)
'''


@pytest.fixture
def keylog(tmp_path, monkeypatch):
    """A library module (not the program's code) with a log keyed by the caller."""
    yield library_module(tmp_path, monkeypatch, "probe_keylog", _KEYLOG)
    sys.modules.pop("probe_keylog", None)


def _failing_step(s, x, i, sync):
    y = tf.reduce_sum(x) * s.w
    tf.nest.map_structure(functools.partial(s.lg.put, f"step{i}"), 1.0)  # (the trace's)
    tf.nest.map_structure(s.lg.beat, 2.0)
    sync()  # (a library call: the other thread writes to the same log meanwhile)
    sync()
    return np.asarray(y) + 1.0  # (the trace fails: the call runs plainly)


def _log_while_another_thread_writes(keylog, jit, step=_failing_step):
    """Each call's trace (and plain rerun) writes the library's log while another thread
    writes to it too (between the step's `sync(); sync()`)."""
    s = argparse.Namespace(lg=keylog.Logger(), w=tf.Variable(1.0))
    meet, current = threading.Barrier(2, timeout=120), [0]

    def work():
        s.lg.history[f"other{current[0]}"] = float(current[0])
        s.lg.beats.append(-1.0)
    thread = threading.Thread(target=meet_each_call, args=(meet, current, work))
    thread.start()
    g = jit(step)
    out = []
    try:
        for i in range(5):
            current[0] = i
            out.append(float(g(s, tf.constant([float(i)]), i, meet.wait)))
    finally:
        current[0] = None
        meet.wait()
        thread.join(timeout=300)
    assert not thread.is_alive()
    return out, dict(s.lg.history), list(s.lg.beats), g


def test_a_disturbed_failed_trace_puts_back_its_own_library_writes(keylog):
    # (F433: the trace's `put` and `beat` were kept, the plain rerun made them again:
    # beats [2.0, 2.0, -1.0, ...] where plain Python has [2.0, -1.0, ...]; the other
    # thread's writes to the same dict and list are kept)
    plain = _log_while_another_thread_writes(keylog, lambda f: f)[:3]
    for _ in range(2):  # (threads: several runs)
        out, history, beats, g = _log_while_another_thread_writes(keylog, janus.jit)
        assert (out, history, sorted(beats)) == (plain[0], plain[1], sorted(plain[2]))
        assert len(beats) == len(plain[2])

