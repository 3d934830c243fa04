"""Fault injection: a function that changes attributes, lists, dicts, a global list,
stdout and a variable in program order, forced to fail at every point janus can fail
(each in-graph guard, each host guard, an op inside the graph, janus's own machinery,
Ctrl-C while the graph runs). After every call, heap, variables, the global and stdout
must be exactly what plain Python leaves."""
import signal

import numpy as np
import pytest
import tensorflow as tf

import janus
import janus.cache
from janus import events
from janus.errors import JanusInternalError
from tests.differential import Call, _run, assert_snapshots_equal, compare_outcomes, snapshot

LOG = []  # a global list the function appends to


class State:
    def __init__(self):
        self.a = tf.zeros([3])
        self.n = 0
        self.items = []
        self.table = {}
        self.v = tf.Variable(0.0)
        self.w = tf.ones([3, 2])


def step(s, x):
    s.a = s.a + x
    print("start", s.n)
    if tf.reduce_sum(x) > 0:           # in-graph guard 1
        s.items.append(x * 2.0)
    s.table["k"] = s.a * 3.0
    s.v.assign_add(tf.reduce_sum(x))
    if tf.reduce_max(x) > 1.0:         # in-graph guard 2
        LOG.append(len(s.items))
    s.n = s.n + 1
    y = tf.matmul(tf.reshape(x, [1, -1]), s.w)  # fails inside the graph if x is not [3]
    print("done", len(s.table))
    return y


def _c(*values):
    return tf.constant(values, tf.float32)


def _same_run(calls, jitted, inject=None):
    """Run `calls` plainly, then under `jitted` (`inject(i, jitted)` before call i); compare
    results, errors, stdout, heap and LOG after every call."""
    LOG.clear()
    plain_state, expected = State(), []
    for args in calls:
        outcome = _run(step, Call(plain_state, *args), plain_state)
        expected.append((outcome, snapshot(list(LOG))))
    LOG.clear()
    state = State()
    for i, args in enumerate(calls):
        if inject is not None:
            inject(i, jitted)
        outcome = _run(jitted, Call(state, *args), state)
        compare_outcomes(expected[i][0], outcome, f"call #{i} ({jitted.last_decision})")
        assert_snapshots_equal(expected[i][1], snapshot(list(LOG)), f"call #{i}: LOG")
    return jitted


BASE = [(_c(1.0, 2.0, 3.0),), (_c(2.0, 3.0, 4.0),), (_c(1.5, 2.0, 2.5),)]


@pytest.mark.parametrize("guard, values", [("tf.reduce_sum(x) > 0", (-3.0, 0.0, 2.0)),
                                           ("tf.reduce_max(x) > 1.0", (0.5, 0.5, 0.5))])
def test_each_in_graph_guard_fails_and_the_heap_is_plain(guard, values):
    calls = BASE + [(_c(*values),), BASE[1], (_c(*values),), BASE[2]]
    jitted = _same_run(calls, janus.jit(step))
    failed = " ".join(jitted.stats.guard_failures)
    assert guard in failed, failed
    assert jitted.stats.graph_calls >= 1


def test_every_host_guard_forced_to_fail():
    probe = janus.jit(step)
    state = State()
    for args in BASE:
        probe(state, *args)
    count = len(probe.specializations[0].guards.guards)
    assert count >= 3

    forced = []

    def inject(i, jitted):  # call len(BASE)+k: guard k of every graph fails, once
        k = i - len(BASE)  # (every graph: two graphs may fit the same calls)
        if k < 0:
            return
        called = []  # (a call janus runs plainly without checking guards forces none:
        # a function that stopped generating skips them, F371)
        for spec in jitted.specializations:
            guards = spec.guards

            def once(args, kwargs, guards=guards, real=guards.check):
                guards.check = real
                if k < len(guards.guards) and not called:
                    called.append(k)
                    forced.append(k)
                return k if k < len(guards.guards) else real(args, kwargs)
            guards.check = once
    jitted = _same_run(BASE + [BASE[1]] * count, janus.jit(step), inject)
    # (a later graph may have fewer guards than the probe's first: a list's length fed)
    assert len(forced) >= 3 and sum(jitted.stats.guard_failures.values()) >= len(forced)


def test_an_op_failing_inside_the_graph_leaves_what_plain_python_leaves():
    grow = [(_c(*range(1, n + 1)),) for n in (3, 3, 3)]
    wrong = [(_c(1.0, 2.0, 3.0, 4.0),), (_c(1.0, 2.0, 3.0, 4.0, 5.0),),
             (_c(2.0, 3.0, 4.0, 5.0),), (_c(1.0, 2.0, 3.0),)]
    reasons = []
    listener = events.subscribe("fallback", lambda jit, category, reason: reasons.append(reason))
    try:
        _same_run(grow + wrong, janus.jit(step))
    finally:
        events.unsubscribe("fallback", listener)
    assert any(r.startswith("graph op failed") for r in reasons), reasons


def steady(s, x):
    """Like `step`, with effects whose guards settle (one graph runs every call)."""
    s.a = s.a + x
    print("start", s.n)
    s.items.append(x * 2.0)
    s.table["k"] = s.a * 3.0
    s.v.assign_add(tf.reduce_sum(x))
    LOG.append(tf.reduce_max(x))
    s.n = s.n + 1
    print("done", s.n)
    return s.a


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler, as in a terminal (a shell starts background jobs with
    SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("when", ["before", "after"])
def test_ctrl_c_during_the_graph_leaves_all_or_none_of_the_call(when, capsys, python_sigint):
    """Ctrl-C before the graph ran: none of the call's effects; arriving while it runs
    (after it updated the variables): the write-back completes, then KeyboardInterrupt."""
    jitted = janus.jit(steady)
    state, plain = State(), State()
    for args in BASE * 3:
        jitted(state, *args)
        steady(plain, *args)
    assert "graph" in jitted.last_decision
    graphs = [(spec, spec.concrete) for spec in jitted.specializations]
    ran = []

    def interrupting(real):
        def interrupted(*inputs):
            ran.append(1)
            if when == "before":
                raise KeyboardInterrupt
            results = real(*inputs)
            signal.raise_signal(signal.SIGINT)  # Ctrl-C arrives as the graph returns
            return results
        return interrupted
    for spec, real in graphs:
        spec.concrete = interrupting(real)
    n = len(LOG)
    capsys.readouterr()
    with pytest.raises(KeyboardInterrupt):
        jitted(state, *BASE[0])
    assert ran
    for spec, real in graphs:
        spec.concrete = real
    janus_added, janus_out = LOG[n:], capsys.readouterr().out
    del LOG[n:]
    if when == "after":  # all of the call: exactly what the plain call leaves
        steady(plain, *BASE[0])
        assert snapshot(LOG[n:]) == snapshot(janus_added) and janus_added
        assert capsys.readouterr().out == janus_out != ""
        del LOG[n:]
    else:  # none of it
        assert janus_added == [] and janus_out == ""
    assert_snapshots_equal(snapshot(plain), snapshot(state), "heap after Ctrl-C")
    steady(plain, *BASE[1])  # and the function goes on as if nothing happened
    jitted(state, *BASE[1])
    assert_snapshots_equal(snapshot(plain), snapshot(state), "heap after the next call")


# -- janus's own machinery failing ----------------------------------------------------------

def _break(monkeypatch, where):
    """Make one piece of janus's machinery raise (from a frame in janus's own package,
    as a janus bug would)."""
    import os
    from janus import function
    namespace = {}
    source = f"def boom(*args, **kwargs):\n    raise RuntimeError('injected failure in {where}')"
    exec(compile(source, os.path.join(os.path.dirname(function.__file__), "injected.py"), "exec"),
         namespace)
    boom = namespace["boom"]
    if where == "guard check":
        from janus.graphgen.guards import GuardSet
        real = GuardSet._compile
        monkeypatch.setattr(GuardSet, "_compile", staticmethod(lambda *a: (real(*a)[0], boom)))
    elif where == "generation":
        from janus import generation
        monkeypatch.setattr(generation, "generate", boom)
    elif where == "conversion":
        monkeypatch.setattr(function, "convert", boom)
    elif where == "warm start":
        monkeypatch.setattr(janus.cache, "warm_start", boom)
    elif where == "plan":
        from janus import generation  # (where the plan is made since d90eed4)
        monkeypatch.setattr(generation, "plan_from_profile", boom)
    elif where == "event listener":
        from janus import events
        monkeypatch.setitem(events._subscribers, "graph_run", [boom])
        monkeypatch.setitem(events._subscribers, "profiled", [boom])
    elif where == "profiler":
        from janus.profiler.profile import Profile
        monkeypatch.setattr(Profile, "record_attribute", boom)


MACHINERY = ["guard check", "generation", "conversion", "warm start", "plan",
             "event listener", "profiler"]


@pytest.mark.parametrize("where", MACHINERY)
def test_internal_errors_never_reach_the_user(monkeypatch, where):
    monkeypatch.setattr(janus.config, "raise_internal_errors", False)
    _break(monkeypatch, where)
    jitted = _same_run(BASE * 2, janus.jit(step))
    if where != "event listener":  # a failing listener is only logged
        assert jitted.stats.internal_errors >= 1
        assert "janus internal error" in jitted.explain()
    if where not in ("event listener", "warm start"):  # those calls go on profiling
        assert jitted.stats.fallback_reasons["internal error"] >= 1


@pytest.mark.parametrize("where", MACHINERY)
def test_internal_errors_raise_under_the_test_switch(monkeypatch, where):
    monkeypatch.setattr(janus.config, "raise_internal_errors", True)
    _break(monkeypatch, where)
    jitted = janus.jit(step)
    state = State()
    with pytest.raises(JanusInternalError) as info:
        for args in BASE * 2:
            jitted(state, *args)
    assert "injected failure" in repr(info.value.__cause__) or \
        "injected failure" in str(info.value)


def test_user_exceptions_propagate_with_the_users_line():
    def checked(x, n):
        if n < 0:
            raise ValueError(f"bad n {n}")
        return x * n
    jitted = janus.jit(checked)
    for n in (1, 2, 3, -1, 2, -5):
        if n < 0:
            with pytest.raises(ValueError, match="bad n") as info:
                jitted(tf.constant(1.0), n)
            innermost = info.traceback[-1]
            assert str(innermost.path) == __file__
            assert "raise ValueError" in str(innermost.statement)
        else:
            np.testing.assert_allclose(jitted(tf.constant(1.0), n).numpy(), n)
    assert jitted.stats.internal_errors == 0


def test_janus_failing_after_the_profiled_call_changed_things_is_not_hidden(monkeypatch):
    """Profiling applies effects directly: after one, janus cannot rerun the call plainly
    (that would run user code twice), so its error propagates, whatever the switch."""
    monkeypatch.setattr(janus.config, "raise_internal_errors", False)
    from janus.profiler.profile import Profile
    real = Profile.record_attribute
    _break(monkeypatch, "profiler")
    broken = Profile.record_attribute
    monkeypatch.setattr(Profile, "record_attribute", lambda self, obj, name, value, write:
                        broken() if write and name == "n" else
                        real(self, obj, name, value, write))
    jitted, state, plain = janus.jit(step), State(), State()
    with pytest.raises(JanusInternalError):
        jitted(state, *BASE[0])
    step(plain, *BASE[0])  # the converted copy ran once, up to `s.n = ...`
    for name in ("a", "items", "table", "v"):
        assert_snapshots_equal(snapshot(getattr(plain, name)), snapshot(getattr(state, name)),
                               name)
    assert state.n == 0
    state.n = plain.n
    assert "janus internal error" in jitted.explain()
    for args in BASE:  # from then on it runs plainly
        expected, actual = step(plain, *args), jitted(state, *args)
        np.testing.assert_allclose(actual.numpy(), expected.numpy())
    assert jitted.stats.fallback_reasons["internal error"] == len(BASE)


def test_converted_code_raising_where_python_does_not_is_caught(monkeypatch):
    """An exception from the converted copy before any effect: plain Python decides. Here
    it does not raise, so the exception was a conversion bug: the plain result is returned
    and the function is marked."""
    monkeypatch.setattr(janus.config, "raise_internal_errors", False)
    from janus.fallback.safety import WatchedProfileRuntime

    def test(self, site, value):
        raise ValueError("a conversion bug")
    monkeypatch.setattr(WatchedProfileRuntime, "test", test)

    def pure(x):
        if tf.reduce_sum(x) > 0:
            return x * 2.0
        return x
    jitted = janus.jit(pure)
    np.testing.assert_allclose(jitted(_c(1.0, 2.0)).numpy(), [2.0, 4.0])
    assert jitted.stats.internal_errors == 1
    assert "plain Python did not raise" in jitted.explain()
