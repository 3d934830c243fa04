"""A whole-function graph that does not pay against plain Python is not used (issues
10/11; graphgen/plain_trial.py): the decision on real calls of jitted functions, results
and heap equal to plain Python during and after the trial. The decisions are made on
injected timings (no timed test), except where a test says it only checks correctness."""
import types

import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.graphgen import plain_trial, trial, xla
from janus.stats import Stats
from tests.differential import Call, assert_same

TRIAL_CALLS = 2 + 2 * trial.ROUNDS  # warm-up calls, then the timed rounds
BEFORE = 2 + plain_trial.START  # profiling calls, then graph calls until a trial starts


@pytest.fixture(autouse=True)
def plain_trial_on(monkeypatch):
    """The tests' conftest turns the trial off (JANUS_PLAIN_TRIAL=0): on here."""
    monkeypatch.setattr(janus.config, "plain_trial", True)


def _fake_timings(monkeypatch, seconds: dict):
    """Calls 'take' seconds["plain"] or seconds["graph"], whichever kind ran (the
    decision sees these instead of measured times); the trial starts at the START-th
    graph call, however long that one took; a plain decision is not measured again
    (tests/graphgen/test_plain_trial.py tests that on fed times)."""
    real_after = plain_trial.after_call
    monkeypatch.setattr(plain_trial, "MAX_GRAPH_S", float("inf"))
    monkeypatch.setattr(plain_trial, "SLOWER", float("inf"))

    def after_call(spec, t, kind, _, raised=False, watched=False):
        return real_after(spec, t, kind, seconds[kind], raised, watched)
    monkeypatch.setattr(plain_trial, "after_call", after_call)


def tiny(x):
    return x * 2.0 + 1.0


def loop(x):
    for _ in range(50):
        x = x * 1.01 + 0.1
    return x


def matmuls(x, w):
    for _ in range(4):
        x = tf.tanh(tf.matmul(x, w))
    return tf.reduce_sum(x)


def _call(jitted, fn, *args):
    np.testing.assert_allclose(jitted(*args).numpy(), fn(*args).numpy(), rtol=1e-6)


def test_a_tiny_function_whose_graph_does_not_pay_runs_plainly(monkeypatch):
    _fake_timings(monkeypatch, {"plain": 1e-4, "graph": 3e-4})
    jitted = janus.jit(tiny)
    x = tf.constant([1.0, 2.0, 3.0])
    for _ in range(BEFORE + TRIAL_CALLS):  # profiling, graph calls, the trial
        _call(jitted, tiny, x)
    [spec] = jitted.specializations
    assert spec.runs_plain and spec.plain.startswith("plain (the graph does not pay: plain "
                                                     "Python was 3.00x as fast"), spec.plain
    stats = janus.stats(jitted)
    graph_calls, plain_calls = stats.graph_calls, stats.plain_calls
    assert plain_calls == 1 + trial.ROUNDS  # its trial's plain turns
    for i in range(10):  # decided: plain from now on, results equal
        _call(jitted, tiny, x + i)
    assert stats.graph_calls == graph_calls and stats.plain_calls == plain_calls + 10
    assert stats.calls == stats.graph_calls + stats.plain_calls + stats.profile_calls
    assert f"plain={stats.plain_calls}" in str(stats)
    text = jitted.explain(x)
    assert "this call: runs plainly: specialization #0 fits and its graph does not pay" in text
    assert "last call: plain (specialization #0 fits; its graph does not pay)" in text
    assert f"graph vs plain: {spec.plain}; {spec.plain_calls} calls ran plainly" in text
    # a call the plain specialization does not fit gets a graph of its own (and a trial)
    # at the next checked call; until then (at most UNCHECKED calls) it runs plainly
    for i in range(plain_trial.UNCHECKED + 1):
        _call(jitted, tiny, tf.ones([2, 2]))
        if len(jitted.specializations) == 2:
            break
    assert len(jitted.specializations) == 2 and stats.graph_calls == graph_calls + 1
    assert stats.calls == stats.graph_calls + stats.plain_calls + stats.profile_calls


def test_a_plain_decision_checks_one_call_in_a_run(monkeypatch):
    """After a checked call that fits a plain decision, `UNCHECKED` calls run the function
    at once: whatever they are given, plainly (right, results equal); counted all the
    same. The next checked call sends a call that does not fit to a graph of its own."""
    _fake_timings(monkeypatch, {"plain": 1e-4, "graph": 3e-4})
    checks = []
    jitted = janus.jit(tiny)
    x = tf.constant([1.0, 2.0, 3.0])
    for _ in range(BEFORE + TRIAL_CALLS):
        _call(jitted, tiny, x)
    [spec] = jitted.specializations
    assert spec.runs_plain
    real_check = spec.guards.check  # (compiled per guard set)
    monkeypatch.setattr(spec.guards, "check", lambda a, k: checks.append(1) or real_check(a, k))
    stats = janus.stats(jitted)
    calls, plain_calls = stats.calls, spec.plain_calls
    n = 4 * (plain_trial.UNCHECKED + 1)
    for i in range(n):
        _call(jitted, tiny, x + i)
    assert len(checks) <= n // (plain_trial.UNCHECKED + 1) + 1
    assert stats.calls == calls + n and spec.plain_calls == plain_calls + n
    assert stats.graph_calls + stats.plain_calls + stats.profile_calls == stats.calls
    other = tf.ones([2, 2])  # does not fit: plainly while unchecked, then its own graph
    for _ in range(plain_trial.UNCHECKED + 1):
        _call(jitted, tiny, other)
    assert len(jitted.specializations) == 2
    jitted.reset()  # nothing runs unchecked after a reset
    _call(jitted, tiny, x)
    assert janus.stats(jitted).profile_calls == 1


@pytest.mark.parametrize("fn, make_args", [
    (loop, lambda: (tf.ones([4]),)),
    (matmuls, lambda: (tf.ones([8, 8]), tf.fill([8, 8], 0.01))),
])
def test_a_graph_that_pays_is_kept(monkeypatch, fn, make_args):
    _fake_timings(monkeypatch, {"plain": 2e-3, "graph": 2e-4})
    jitted = janus.jit(fn)
    for _ in range(BEFORE + TRIAL_CALLS + 10):
        _call(jitted, fn, *make_args())
    [spec] = jitted.specializations
    assert spec.plain.startswith("graph (it pays"), spec.plain
    assert not spec.runs_plain and spec.plain_trial is None
    stats = janus.stats(jitted)
    assert stats.plain_calls == 1 + trial.EARLY_ROUNDS  # a clear loss ends the trial early
    assert stats.graph_calls == stats.calls - stats.profile_calls - stats.plain_calls


def test_a_loop_of_small_ops_keeps_its_graph_on_real_timings():
    """Real timings, no injection: the graph of 50 small ops is many times faster than
    their eager run here, so whichever way the trial goes (or is not run, if the graph
    call took over the bound), the graph is kept; results stay equal."""
    jitted = janus.jit(loop)
    for i in range(BEFORE + TRIAL_CALLS + 5):
        _call(jitted, loop, tf.ones([4]) * i)
    [spec] = jitted.specializations
    assert not spec.runs_plain and spec.plain_trial is None
    assert spec.plain == "" or spec.plain.startswith("graph ("), spec.plain


def test_real_timings_decide_something_and_results_stay_equal():
    """Real timings: which way a tiny function goes is the machine's business (not
    asserted; a loaded machine may even measure a plain decision again); that a trial
    comes to a decision and every call equals plain Python is."""
    jitted = janus.jit(tiny)
    decisions = set()
    for i in range(BEFORE + 2 + TRIAL_CALLS + 5):
        _call(jitted, tiny, tf.constant([1.0, 2.0]) * i)
        if jitted.specializations:
            decisions.add(jitted.specializations[0].plain.split(" (")[0])
    assert decisions & {"plain", "graph"} or decisions == {""}, decisions


def test_big_graphs_are_never_tried(monkeypatch):
    monkeypatch.setattr(plain_trial, "MAX_GRAPH_S", 0.0)  # every graph counts as big
    monkeypatch.setattr(plain_trial, "PROFILED_OVER", float("inf"))  # ... and as fast
    jitted = janus.jit(tiny)
    for i in range(20):
        _call(jitted, tiny, tf.ones([3]) * i)
    [spec] = jitted.specializations
    assert spec.plain == "" and spec.plain_trial is None
    assert janus.stats(jitted).plain_calls == 0


def py_loop(x, nums):
    t = 0.0
    for v in nums:
        t += v * v
    return x + t


def test_a_big_graph_slower_than_the_profiled_calls_is_tried(monkeypatch):
    """F378: a Python loop over a list of floats fed every float as its own input (201
    here, 1001 in the probe: 8.5 ms a graph call against 0.1 ms plain) and, over
    `MAX_GRAPH_S`, was never tried: a graph call slower than the profiled calls is."""
    _fake_timings(monkeypatch, {"plain": 1e-4, "graph": 9e-3})
    monkeypatch.setattr(plain_trial, "MAX_GRAPH_S", 0.0)  # every graph counts as big
    monkeypatch.setattr(plain_trial, "PROFILED_OVER", 0.0)  # ... and slower than profiled
    nums = [float(i) for i in range(200)]
    calls = [(tf.ones([4]) * i, list(nums)) for i in range(BEFORE + TRIAL_CALLS + 30)]
    stats = assert_same(py_loop, calls)
    assert stats.generations == 1 and stats.plain_calls >= 30, stats
    assert stats.graph_calls <= plain_trial.START + trial.ROUNDS + 1, stats


def test_plain_faster_compares_with_the_profiled_calls():
    """The bookkeeping of F378's rule, on made-up times: a graph call over the mean of the
    profiled calls is tried whatever its size; none profiled, none is."""
    jit = types.SimpleNamespace(stats=Stats(profile_calls=2, time_profiling=0.006))
    assert plain_trial.plain_faster(jit, 0.009) and not plain_trial.plain_faster(jit, 0.002)
    jit.stats = Stats()  # (3 ms a profiled call above; here none profiled)
    assert not plain_trial.plain_faster(jit, 1.0)


def test_the_switch_turns_it_off(monkeypatch):
    _fake_timings(monkeypatch, {"plain": 1e-4, "graph": 3e-4})
    monkeypatch.setattr(janus.config, "plain_trial", False)
    jitted = janus.jit(tiny)
    for i in range(20):
        _call(jitted, tiny, tf.ones([3]) * i)
    assert janus.stats(jitted).plain_calls == 0 and jitted.specializations[0].plain == ""
    assert janus.jit(tiny, plain_trial=True).config.plain_trial  # a per-function option


class Counter:
    def __init__(self):
        self.v = tf.Variable(tf.zeros([3]))
        self.total = tf.zeros([3])
        self.steps = 0
        self.seen = []


def step(c, x, scale):
    c.v.assign_add(x * scale)
    c.total = c.total + x
    c.steps += 1
    c.seen.append(scale)
    if scale > 2:
        print("big scale", scale)
        return c.v * 2.0
    return c.v + c.total


@pytest.mark.parametrize("seconds", [{"plain": 1e-4, "graph": 3e-4},    # decided plain
                                     {"plain": 3e-4, "graph": 1e-4}])   # graph kept
def test_heap_variables_and_guards_equal_plain_python_during_and_after_the_trial(
        monkeypatch, seconds):
    _fake_timings(monkeypatch, seconds)
    calls = []
    for i in range(40):
        # mostly the same specialization (the trial's), with guard failures mixed in:
        # another Python value, another shape
        scale = 3 if i % 9 == 8 else 1
        x = tf.ones([3]) * i if i % 13 != 12 else tf.ones([3]) * 0.5
        calls.append(Call(x, scale))
    stats = assert_same(step, calls, Counter)
    assert stats.plain_calls > 0 and stats.graph_calls > 0


def test_an_exception_in_a_plain_run_is_plain_pythons(monkeypatch):
    _fake_timings(monkeypatch, {"plain": 1e-4, "graph": 3e-4})

    def checked(x, limit):
        if limit < 0:
            raise ValueError("negative limit")
        return tf.minimum(x, limit)

    calls = [Call(tf.ones([2]) * i, 5.0) for i in range(BEFORE + TRIAL_CALLS)]
    calls += [Call(tf.ones([2]), -1.0), Call(tf.ones([2]) * 7, 5.0)] * 3
    stats = assert_same(checked, calls)
    assert stats.plain_calls > 0


def test_a_plain_decision_wins_over_xla(monkeypatch):
    _fake_timings(monkeypatch, {"plain": 1e-4, "graph": 3e-4})
    monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 0.0)  # XLA would try tiny graphs too
    monkeypatch.setattr(janus.config, "xla", True)
    jitted = janus.jit(tiny)
    for i in range(BEFORE + TRIAL_CALLS + 10):
        _call(jitted, tiny, tf.ones([3]) * i)
        spec = jitted.specializations[0] if jitted.specializations else None
        assert spec is None or not (spec.plain_trial and spec.xla), (spec.plain, spec.xla)
    assert spec.runs_plain and spec.xla == "" and spec.trial is None


class Log:
    def __init__(self):
        self.count = 0


def checked(log, x, limit):
    """Raises where the sum is not under `limit`: an assertion op of the user's."""
    y = tf.reduce_sum(x * 2.0)
    log.count += 1
    tf.debugging.assert_less(y, limit, message="over the limit")
    return y


def test_a_graph_that_keeps_raising_as_plain_python_does_runs_plainly_until_it_stops():
    """Each call whose graph raised ran again plainly (to raise as Python does): 2-3x
    plain. After a few, the specialization runs plainly; calls that stop raising bring the
    graph back. Exceptions, results and the heap are plain Python's throughout."""
    x = tf.ones([4])
    calls = [(x, 100.0)] * 3 + [(x, 0.0)] * 12 + [(x, 100.0)] * 14
    stats = assert_same(checked, calls, make_state=Log)
    assert stats.plain_calls >= plain_trial.QUIET  # decided plain while it raised ...
    assert stats.graph_calls > 3  # ... and back to the graph once it stopped


def test_a_graph_whose_first_calls_spiked_under_load_still_goes_on_trial(monkeypatch):
    """F364: a trivial graph's calls 2-4 took 3-8 ms on a loaded machine, so its trial
    never started and the graph, 70x slower than plain, ran every call. Its calls
    'take' 5 ms at START to START + 2, 1 ms after: the median of a later window starts
    the trial, plain wins it; results equal throughout."""
    real_eligible, real_after = plain_trial.eligible, plain_trial.after_call
    monkeypatch.setattr(plain_trial, "SLOWER", float("inf"))
    monkeypatch.setattr(plain_trial, "PROFILED_OVER", float("inf"))  # (not F378's rule)

    def eligible(jit, spec, _):
        return real_eligible(jit, spec, 5e-3 if spec.calls <= plain_trial.START + 2 else 1e-3)

    def after_call(spec, t, kind, _, raised=False, watched=False):
        return real_after(spec, t, kind, {"plain": 1e-4, "graph": 1e-3}[kind], raised,
                          watched)
    monkeypatch.setattr(plain_trial, "eligible", eligible)
    monkeypatch.setattr(plain_trial, "after_call", after_call)
    calls = [(tf.constant([1.0, 2.0]) * float(i),) for i in range(60)]
    stats = assert_same(tiny, calls)
    assert stats.plain_calls >= 30 and stats.graph_calls >= plain_trial.LATER[0]
