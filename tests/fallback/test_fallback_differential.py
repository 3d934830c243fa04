"""Differential tests of falling back: all-or-nothing effects when an in-graph guard
fails, unsupported constructs (eager, explained), strict mode, disabling janus."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.differential import Call, assert_same, compare_outcomes, _run


def c(value, dtype=tf.float32):
    return tf.constant(value, dtype)


# -- all or nothing ------------------------------------------------------------------------------

class Recorder:
    def __init__(self):
        self.last = tf.zeros([2])
        self.history = []
        self.v = tf.Variable(0.0)


def effects_then_branch(rec, log, x):
    rec.last = x * 2.0                    # attribute write
    rec.history = rec.history[-1:] + [x]  # heap list (bounded, so its length is stable)
    log.append(x + 1.0)                   # list argument
    print("x is", x, f"sum={tf.reduce_sum(x):.2f}")
    rec.v.assign_add(tf.reduce_sum(x))
    if tf.reduce_sum(x) > 0:              # the in-graph guard: profiled True
        return x + 1.0
    return x - 1.0


def test_failed_in_graph_guard_leaves_exactly_one_eager_run_of_effects():
    pos = [c([1.0, 2.0]), c([0.5, 0.5]), c([3.0, -1.0]), c([1.0, 1.0]), c([2.0, 2.0])]
    neg = c([-4.0, 1.0])

    def call(x):
        return lambda s: (s, [c(7.0)], x)
    calls = [call(x) for x in pos[:2]] + [call(pos[2]), call(pos[3]),  # profiled, then graph
                                          call(neg),                    # guard fails
                                          call(pos[4]), call(neg)]
    jitted = janus.jit(effects_then_branch, profile_calls=2)
    stats = assert_same(effects_then_branch, calls[:4], make_state=Recorder, jitted=jitted)
    assert stats.graph_calls == 2
    # the full run with the flipping calls, compared call by call (heap, variable, stdout)
    jitted = janus.jit(effects_then_branch, profile_calls=2)
    stats = assert_same(effects_then_branch, calls, make_state=Recorder, jitted=jitted)
    assert stats.fallback_reasons["guard failure"] >= 1
    assert any("reduce_sum(x) > 0" in what for what in stats.guard_failures)


class Box:
    def __init__(self):
        self.items = [c(0.0)]
        self.v = tf.Variable([1.0, 1.0])
        self.scale = c(1.0)


def effects_then_loop_guard(box, x):
    box.scale = box.scale * 2.0
    box.items[0] = box.items[0] + 1.0
    box.v.assign(box.v * 2.0 + x)
    print(f"v={box.v.read_value()}")
    total = tf.zeros([])
    for value in tf.unstack(x):
        total = total + value
        if total > 3.0:  # tensor-valued break: profiled never taken (with a second way
            break        # out that is not an exit test, the loop is unrolled and guarded,
        if total < -100.0:  # not one tf.while_loop)
            total = total - 1.0
            break
    box.v.assign_add(x * 0.0 + total)
    return total


def test_failed_guard_in_loop_applies_no_partial_effects():
    small, big = c([0.5, 1.0]), c([5.0, 1.0])
    calls = [(small,), (small,), (small,), (big,), (small,), (big,), (small,)]
    stats = assert_same(effects_then_loop_guard, calls, make_state=Box, profile_calls=2)
    assert stats.fallback_reasons["guard failure"] >= 1
    assert stats.graph_calls >= 2


# -- host guard failure: the call runs eagerly with the same effects ----------------------------

class Holder:
    def __init__(self):
        self.mode = "add"
        self.acc = tf.zeros([2])


def mode_step(h, x):
    if h.mode == "add":
        h.acc = h.acc + x
    else:
        h.acc = h.acc * x
    print("mode", h.mode)
    return h.acc


def test_heap_value_changed_between_calls():
    def set_mode(mode, x):
        def call(s):
            s.mode = mode
            return (s, x)
        return call
    x = c([1.0, 2.0])
    calls = [set_mode("add", x), set_mode("add", x), set_mode("add", x), set_mode("mul", x),
             set_mode("mul", x), set_mode("add", x), set_mode("mul", x), set_mode("mul", x)]
    stats = assert_same(mode_step, calls, make_state=Holder, profile_calls=2)
    assert stats.graph_calls >= 3


def limited(x, mode):
    return x * len(mode) + len(mode)


def test_specialization_limit_falls_back_correctly():
    # a string is specialized by value (numbers that change become tensor inputs instead)
    calls = [(c([1.0, 2.0]), k) for k in ["a", "a", "bb", "ccc", "dddd", "e", "ff", "bb"]]
    stats = assert_same(limited, calls, profile_calls=1, max_specializations=2)
    assert stats.fallback_reasons["limit reached"] >= 1
    assert stats.generations <= 2


# -- exceptions -----------------------------------------------------------------------------------

def raises_on_python_value(x, n):
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    return x * n


def test_python_exception_raised_like_plain_python():
    calls = [(c([1.0]), 1), (c([2.0]), 1), (c([3.0]), 1), (c([3.0]), -1), (c([4.0]), 1),
             (c([5.0]), -2)]
    assert_same(raises_on_python_value, calls, profile_calls=2)


class Store:
    def __init__(self):
        self.seen = []


def effects_then_raise(store, x, fail):
    store.seen = [x]
    print("before")
    if fail:
        raise KeyError("boom")
    return x


def test_effects_before_an_exception_are_kept():
    calls = [(c(1.0), False), (c(2.0), False), (c(3.0), False), (c(4.0), True), (c(5.0), False),
             (c(6.0), True)]
    assert_same(effects_then_raise, calls, make_state=Store, profile_calls=2)


def checked_sqrt(x):
    tf.debugging.assert_non_negative(x, message="negative input")
    return tf.sqrt(x)


def test_tf_assertion_failing_in_graph_raises_like_eager():
    calls = [(c([1.0, 4.0]),), (c([9.0, 4.0]),), (c([16.0, 4.0]),), (c([-1.0, 4.0]),),
             (c([1.0, 1.0]),)]
    assert_same(checked_sqrt, calls, profile_calls=2)


# -- unsupported constructs -------------------------------------------------------------------------

def _explained(jitted, *args):
    text = janus.explain(jitted, *args)
    stats = janus.stats(jitted)
    return text, stats


def generator_fn(x):
    for i in range(3):
        yield x * i


def test_generator_function_runs_eagerly_with_explanation():
    jitted = janus.jit(generator_fn, profile_calls=1)
    for i in range(3):
        x = c([float(i), 1.0])
        expected = [t.numpy() for t in generator_fn(x)]
        actual = [t.numpy() for t in jitted(x)]
        np.testing.assert_allclose(actual, expected)
    text, stats = _explained(jitted)
    assert stats.graph_calls == 0
    assert stats.fallback_reasons["unsupported construct"] == 3
    assert "generator" in text
    assert f":{generator_fn.__code__.co_firstlineno}" in text


def gen_helper(x):
    for i in range(3):
        yield x + i


def uses_generator(x):
    return tf.add_n(list(gen_helper(x))) * 2.0


def test_function_calling_a_generator_is_correct():
    calls = [(c([float(i), 1.0]),) for i in range(5)]
    assert_same(uses_generator, calls, profile_calls=2)


def try_gather(x, i):
    try:
        y = tf.gather(x, i)
    except tf.errors.InvalidArgumentError:
        y = tf.constant(-1.0)
    return y * 2.0


def test_try_except_around_tensor_code():
    x = c([1.0, 2.0, 3.0])
    i = lambda v: tf.constant(v, tf.int32)  # noqa: E731
    calls = [(x, i(0)), (x, i(1)), (x, i(2)), (x, i(0)), (x, i(10)), (x, i(1)), (x, i(7))]
    jitted = janus.jit(try_gather, profile_calls=2)
    assert_same(try_gather, calls, jitted=jitted)
    text, stats = _explained(jitted, x, i(1))
    assert "try" in text or "except" in text, text


def uses_numpy_method(x):
    total = x.numpy().cumsum()[-1]  # (a numpy method; `.sum()` stays in the graph: F461)
    return x * float(total)


def uses_numpy_function(x):
    y = np.square(x)
    return tf.constant(y) + 1.0


@pytest.mark.parametrize("fn,needle", [(uses_numpy_method, "x.numpy()"),
                                       (uses_numpy_function, "np.square(x)")])
def test_numpy_inside_function_runs_eagerly_with_explanation(fn, needle):
    calls = [(c([float(i), 1.0]),) for i in range(6)]
    jitted = janus.jit(fn, profile_calls=2)
    stats = assert_same(fn, calls, jitted=jitted)
    text, stats = _explained(jitted, c([1.0, 1.0]))
    assert stats.graph_calls == 0
    assert stats.fallback_reasons["unsupported construct"] >= 1
    line = fn.__code__.co_firstlineno + 1
    assert needle in text or f":{line}" in text, text


def uses_eval(x):
    return eval("x * 2.0", {"x": x}) + 1.0


def test_eval_runs_eagerly_with_explanation():
    calls = [(c([float(i), 1.0]),) for i in range(4)]
    jitted = janus.jit(uses_eval, profile_calls=2)
    stats = assert_same(uses_eval, calls, jitted=jitted)
    text, stats = _explained(jitted, c([1.0, 1.0]))
    assert stats.graph_calls == 0
    assert stats.fallback_reasons["unsupported construct"] == 4
    assert "eval" in text
    assert f":{uses_eval.__code__.co_firstlineno + 1}" in text, text


def test_function_without_source_runs_eagerly_with_explanation():
    namespace = {}
    exec("def built(x):\n    return x * 3.0 + 1.0\n", {"tf": tf}, namespace)
    built = namespace["built"]
    calls = [(c([float(i), 1.0]),) for i in range(4)]
    jitted = janus.jit(built, profile_calls=2)
    stats = assert_same(built, calls, jitted=jitted)
    text, stats = _explained(jitted, c([1.0, 1.0]))
    assert stats.graph_calls == 0
    assert stats.fallback_reasons["unsupported construct"] == 4
    assert "source" in text
    assert "<string>:1" in text, text


# -- strict mode ------------------------------------------------------------------------------------

def test_strict_mode_raises_instead_of_running_unsupported_code_eagerly():
    jitted = janus.jit(generator_fn, strict=True)
    with pytest.raises(janus.JanusFallbackError, match="generator"):
        jitted(c([1.0]))


def test_strict_mode_raises_on_guard_failure_and_leaves_state_untouched():
    jitted = janus.jit(effects_then_branch, profile_calls=2, strict=True)
    plain_state, janus_state = Recorder(), Recorder()
    for x in [c([1.0, 2.0]), c([0.5, 0.5]), c([2.0, 1.0])]:
        compare_outcomes(_run(effects_then_branch, Call(plain_state, [], x), plain_state),
                         _run(jitted, Call(janus_state, [], x), janus_state), "strict")
    assert janus.stats(jitted).graph_calls == 1
    before = _run(lambda s: None, Call(janus_state), janus_state).heap
    log = []
    with pytest.raises(janus.JanusFallbackError, match="guard failure"):
        jitted(janus_state, log, c([-5.0, 1.0]))
    after = _run(lambda s: None, Call(janus_state), janus_state).heap
    from tests.differential import assert_snapshots_equal
    assert_snapshots_equal(before, after, "state after a strict guard failure")
    assert log == []


# -- disabling janus ------------------------------------------------------------------------------------

def test_config_disabled_runs_plainly(monkeypatch):
    monkeypatch.setattr(janus.config, "disabled", True)
    calls = [(c([float(i), 1.0]), 2) for i in range(4)]
    stats = assert_same(limited, calls, profile_calls=1)
    assert stats.graph_calls == 0
    assert stats.profile_calls == 0
    assert stats.generations == 0


def test_janus_disable_environment_variable_runs_plainly(tmp_path):
    script = tmp_path / "disabled.py"
    script.write_text(textwrap.dedent("""
        import tensorflow as tf
        import janus

        @janus.jit(profile_calls=1)
        def f(x):
            print("value", x)
            return x * 2.0

        for i in range(4):
            f(tf.constant(float(i)))
        s = janus.stats(f)
        print("STATS", janus.config.disabled, s.graph_calls, s.profile_calls, s.generations)
    """))
    env = dict(os.environ, JANUS_DISABLE="1", TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))] +
        [p for p in [env.get("PYTHONPATH")] if p])
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[:4] == [f"value tf.Tensor({float(i)}, shape=(), dtype=float32)" for i in range(4)]
    assert lines[-1] == "STATS True 0 0 0"
