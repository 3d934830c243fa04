"""At the specialization limit, calls no graph fits run plainly at once (generation.py:
`LIMIT_QUIET` calls learn nothing from their miss, then `LIMIT_SKIP` skip the guards);
a call fitting a graph runs it again once the guards are checked. Results equal plain
Python's throughout; a change of janus's config is seen at once."""
import random

import tensorflow as tf

import janus
from janus import churn_bound, generation
from janus.function import JitFunction
from tests.differential import assert_same


def step(x, name):
    # (text: a graph per value, never fed; a fed int would fit one graph for all its
    # values, its divmod computed in the graph since F358, and never reach the limit)
    n = int(name[1:])
    return x * (n // 2) + n / 2, divmod(n, 3), name.upper()


X = tf.constant([1.0, 2.0])


def test_calls_past_the_limit_equal_plain_python_and_fitting_ones_run_graphs_again():
    misses = generation.LIMIT_QUIET + generation.LIMIT_SKIP + 5
    values = list(range(12)) + [100 + i for i in range(misses)] + [3, 4, 5] * 30
    jitted = janus.jit(step, max_specializations=4)
    stats = assert_same(step, [(X, f"n{n}") for n in values], jitted=jitted)
    assert stats.fallback_reasons["limit reached"] >= misses
    graphs_before = stats.graph_calls
    for n in [3, 4, 5] * 10:  # (values with graphs: checked again after the skipped calls)
        jitted(X, f"n{n}")
    assert janus.stats(jitted).graph_calls > graphs_before


def test_a_config_change_ends_the_skipped_calls():
    jitted = janus.jit(step, max_specializations=2)
    for n in range(generation.LIMIT_QUIET + 60):  # (past the churn rule's retries)
        jitted(X, f"n{n}")
    assert jitted._limit_skip is not None and jitted._limit_skip[2] > 0
    before = janus.config.strict
    graphs = janus.stats(jitted).graph_calls
    janus.config.strict = True
    try:
        jitted(X, "n1000")
    except janus.JanusFallbackError:
        pass
    else:  # (or the churn rule's retry was due: the call ran a graph of its own)
        assert janus.stats(jitted).graph_calls == graphs + 1, "a skipped call ignored strict mode"
    finally:
        janus.config.strict = before


class Stage:
    def __init__(self):
        self.mode = ""


def staged(s, x):
    y = tf.tanh(x) * 1.1
    if s.mode.endswith("3"):  # (text: a graph per value, never fed)
        y = y + 1.0
    return y * len(s.mode)


def test_a_program_that_moved_on_to_a_steady_stage_gets_its_graph_back():
    # ten stages of two calls each fill the limit and look like churn; the steady stage
    # after them gets a graph (a stale graph makes room, the churn rule tries again)
    modes = [f"stage{d}" for d in range(10) for _ in range(2)] + ["steady"] * 40

    def call(i):
        def make(s):
            s.mode = modes[i]
            return (s, X)
        return make
    jitted = janus.jit(staged, max_specializations=4)
    counts = []
    stats = assert_same(staged, [call(i) for i in range(len(modes))], make_state=Stage,
                        jitted=jitted,
                        observe=lambda _: counts.append(janus.stats(jitted).graph_calls))
    assert counts[-1] - counts[29] >= 20, (counts, janus.explain(jitted))
    assert stats.generations <= 12, stats


def test_f371_more_inputs_than_graphs_each_needing_its_own_stop_generating():
    # (ten names cycled at random, at most four graphs: each graph ran a call or two
    # before it was dropped for the next, while the kept ones held the graph calls at
    # twice the generations, so F139's rule never fired: a generation every other call)
    rng = random.Random(7)
    names = [f"n{rng.randrange(10)}" for _ in range(240)]
    jitted = janus.jit(step, max_specializations=4)
    stats = assert_same(step, [(X, name) for name in names], jitted=jitted)
    assert stats.generations <= 4 * 2 + churn_bound.CHURN_RETRIES + 2, stats
    assert stats.graph_calls > 0


def test_f371_inputs_that_drift_slowly_still_get_their_graphs():
    names = [f"n{stage}" for stage in range(12) for _ in range(12)]
    jitted = janus.jit(step, max_specializations=4)
    stats = assert_same(step, [(X, name) for name in names], jitted=jitted)
    assert stats.generations >= 11 and stats.graph_calls + stats.plain_calls >= 100, stats


class History:
    def __init__(self):
        self.w = tf.Variable(tf.ones([2, 2]))
        self.hist = []


def with_history(s, x):
    # (prober p4's d1: the last ten items of a list the step appends to each call)
    loss = tf.reduce_sum(tf.matmul(x, s.w)) + sum(s.hist[-10:]) * 0.0
    s.hist.append(1.0)
    return loss


def counted(monkeypatch) -> list:
    """Each `_host_guard_failed` call, the miss-learning, noted in the returned list."""
    learned = []
    real = JitFunction._host_guard_failed

    def learn(self, *args, **kwargs):
        learned.append(self.stats.calls)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(JitFunction, "_host_guard_failed", learn)
    return learned


def test_f379_a_churning_function_learns_from_no_miss_while_it_waits(monkeypatch):
    # (each call learned from its miss, at a cost growing with the list, though janus
    # would not generate: 1 call in LIMIT_QUIET + LIMIT_SKIP after F371; every call before)
    learned = counted(monkeypatch)
    jitted = janus.jit(with_history, max_specializations=4)
    calls = [(X[None, :] * 1.0,)] * 400
    stats = assert_same(with_history, calls, make_state=History, jitted=jitted)
    assert stats.fallback_calls > 300, stats  # (it churned)
    assert len(learned) <= stats.generations, (learned, stats)


def test_f380_an_option_cycling_through_more_values_than_graphs_stops_generating():
    # (prober p4's t7: a text option cycling through 20 values, 8 graphs at most: a
    # generation every few calls, 103 in 600, until F371's rule; the cycle keeps each
    # graph's calls at one or two before it is dropped)
    names = [f"n{i % 20}" for i in range(400)]
    jitted = janus.jit(step, max_specializations=8)
    made = []
    stats = assert_same(step, [(X, name) for name in names], jitted=jitted,
                        observe=lambda _: made.append(janus.stats(jitted).generations))
    assert stats.generations <= 8 * 2 + churn_bound.CHURN_RETRIES + 2, stats
    assert made[-1] - made[199] <= churn_bound.CHURN_RETRIES, made  # (the retries' alone)
