"""A function janus cannot convert still runs its callees and optimizer updates as graphs."""
import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.fallback import mixed, whole_trial


def dense(w, x):
    return tf.tanh(tf.matmul(x, w))


def step(w, optimizer, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(dense(w, x) ** 2)
    scale = float(np.float64(loss.numpy())) + 1.0  # numpy on a tensor: not convertible
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return loss * scale


def test_unconvertible_function_equals_eager_and_its_callee_runs_as_graph():
    w_eager, w_janus = (tf.Variable(np.full((3, 2), 0.3, np.float32)) for _ in range(2))
    opt_eager, opt_janus = keras.optimizers.Adam(0.1), keras.optimizers.Adam(0.1)
    jitted = janus.jit(step, segments=False)  # mixed mode as such (segments: test_segments)
    for i in range(6):
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / (i + 1))
        expected = step(w_eager, opt_eager, x)
        actual = jitted(w_janus, opt_janus, x)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-5)
        np.testing.assert_allclose(w_janus.numpy(), w_eager.numpy(), rtol=1e-5, atol=1e-6)
    stats = janus.stats(jitted)
    assert stats.graph_calls == 0 and stats.fallback_reasons["unsupported construct"] >= 1
    assert "numpy" in janus.explain(jitted)
    callee = mixed._callees[dense]
    assert callee.stats.graph_calls >= 1
    assert int(opt_janus.iterations) == int(opt_eager.iterations) == 6


class _Model:
    def __init__(self):
        self.history = []


def _record(model, x):
    y = x * 2.0
    model.history.append(y)
    model.history += [y + 1.0]
    return y


def test_heap_list_only_appended_to_needs_no_new_graph_per_length():
    eager_model, janus_model = _Model(), _Model()
    jitted = janus.jit(_record)
    for i in range(12):
        x = tf.constant(float(i))
        np.testing.assert_allclose(jitted(janus_model, x).numpy(), _record(eager_model, x).numpy())
        assert [float(v) for v in janus_model.history] == [float(v) for v in eager_model.history]
        assert all(isinstance(v, type(x)) for v in janus_model.history)
    stats = janus.stats(jitted)
    assert stats.generations <= 3          # two length-specialized graphs, then one general
    assert stats.graph_calls == 10
    assert any("only appended" in line for line in jitted.specializations[0].plan.describe())


def outer_with_closure(x, k):
    def inner(z):                            # a new function object on every call
        return z * k
    y = inner(x)
    return y, float(y.numpy())               # not convertible: runs mixed


@pytest.mark.parametrize("segment_tried", [True, False])
def test_nested_defs_in_a_mixed_run_are_not_kept_alive(monkeypatch, segment_tried):
    """Each call's nested def used to get a jit of its own, profiled afresh, and a runtime
    in a process-wide table that kept every copy alive (one more per call). The segment
    `y = inner(x)` is tried as a graph (a new `inner` each call: dropped after a few
    generations, whose graphs must go with it) or found too short at once."""
    import gc
    from janus import cache
    from janus.fallback import trial
    from janus.transform import convert
    monkeypatch.setattr(trial, "MIN_PLAIN_S", 0.0 if segment_tried else 10.0)

    def alive() -> int:
        cache.flush()  # (the cache writer holds a new graph until it has written it)
        gc.collect()
        return sum(1 for o in gc.get_objects() if type(o).__name__ == "ConvertedFunction"
                   and o.qualname.startswith("outer_with_closure"))

    jitted = janus.jit(outer_with_closure)
    x = tf.constant(2.0)
    for i in range(4):
        jitted(x, float(i))
    before, callees = alive(), len(mixed._callees)
    for i in range(40):
        value, number = jitted(x, float(i))
        assert number == 2.0 * i and float(value) == 2.0 * i
    assert len(mixed._callees) == callees
    assert alive() <= before + 1  # (the segment's latest converted copy, held by its
    # runtime while its trial runs: one at a time, not one more per call)
    assert convert(outer_with_closure)  # still converts
    seg = janus.explain(jitted)
    assert (("no steady graph" in seg or "ran only the calls that made them" in seg)
            if segment_tried else "too short" in seg)  # (F242: the churn bound may stop it)


class _Env:
    """A numpy environment: nothing in it can become a graph."""

    def __init__(self):
        self.state = np.zeros(3, np.float32)
        self.steps = 0

    def step(self, action):
        self.state = self.state + np.float32(action) * 0.5
        self.steps += 1
        return self.state.copy(), float(self.state.sum()), self.steps % 4 == 0


def _rollout(env, policy_w, x):
    h = dense(policy_w, x)
    total = 0.0
    for _ in range(3):
        obs, reward, done = env.step(int(h.numpy().sum() > 0))
        total += reward
        if done:
            break
    return h * total


def test_a_callee_that_never_runs_a_graph_runs_plainly_after_a_few_calls(monkeypatch):
    """`env.step` runs through its own jit, mixed (its callees could be graphs); after
    PLAIN_AFTER calls in which no graph ran, as it is (no hooks); equal to eager all along.
    The rollout itself keeps running mixed: its callee `dense` runs graphs (whether that
    pays against plain is whole_trial's, tested in test_whole_trial.py: off here)."""
    monkeypatch.setattr(whole_trial, "MAX_TRIALS", 0)
    w = tf.Variable(np.full((3, 2), 0.3, np.float32))
    env_eager, env_janus = _Env(), _Env()
    jitted = janus.jit(_rollout, segments=False)
    for i in range(4 * mixed.PLAIN_AFTER):
        x = tf.constant(np.full((2, 3), (-1.0) ** i * (i + 1), np.float32))
        np.testing.assert_allclose(jitted(env_janus, w, x).numpy(),
                                   _rollout(env_eager, w, x).numpy(), rtol=1e-6)
        np.testing.assert_array_equal(env_janus.state, env_eager.state)
        assert env_janus.steps == env_eager.steps
    env_jit = mixed._callees[_Env.step]
    assert "runs as it is" in janus.explain(env_jit)
    assert jitted._mixed_runner is not None and not jitted._mixed_runner.plain
    assert mixed._callees[dense].stats.graph_calls >= 1


def _host_sum(y):
    return float(y.numpy().sum())


def _calls_a_host_helper(x):
    y = x * 2.0
    return y + _host_sum(y)


def test_a_break_in_a_callee_is_said_once_as_what_happens_at_the_users_line():
    """The trace meets the callee's `.numpy()`: the warning says the function runs split
    (not "eagerly"), names the break's line, and is attributed to the caller's line."""
    import warnings
    jitted = janus.jit(_calls_a_host_helper)
    x = tf.constant([1.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            np.testing.assert_allclose(jitted(x).numpy(), _calls_a_host_helper(x).numpy())
    mine = [w for w in caught if issubclass(w.category, janus.JanusWarning)]
    assert len(mine) == 1, [str(w.message) for w in mine]
    text = str(mine[0].message)
    assert "janus makes no single graph of _calls_a_host_helper" in text
    # (located at the caller's line that calls the helper, the helper named: F485)
    assert f"_calls_a_host_helper ({__file__}:" in text and "(in _host_sum, line" in text
    assert "split at its graph breaks" in text
    assert "eagerly from now on" not in text
    assert mine[0].filename == __file__  # the line that called the jitted function
