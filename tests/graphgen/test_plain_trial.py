"""The graph-or-plain decision on made-up timings (graphgen/plain_trial.py and the
rounds it shares with the XLA trial, graphgen/trial.py): which kind a trial runs when,
what it decides, when a plain decision is measured again. No timed tests: the times
are fed in."""
import types

import pytest

from janus.graphgen import plain_trial, trial
from janus.graphgen.plain_trial import PlainTrial, after_call
from janus.stats import Stats


def _spec(**fields):
    spec = types.SimpleNamespace(id=0, plain="", plain_trial=None, runs_plain=False,
                                 calls=plain_trial.START, xla="", trial=None,
                                 accelerated=None, context=(), distributed=False,
                                 collective_strategy=None, subgraphs=(),
                                 plain_retry_at=-1, window_times=[])
    spec.__dict__.update(fields)
    return spec


def _started():
    spec = _spec()
    plain_trial.start(spec)
    return spec


def _calls(spec, n, plain_s, graph_s):
    """`n` calls of `spec` as the caller makes them (a plain turn runs plainly); True
    for each call after which `spec.plain` changed."""
    changes = []
    for _ in range(n):
        t = spec.plain_trial
        kind = "plain" if spec.runs_plain or t is not None and t.plain_turn() else "graph"
        seconds = plain_s if kind == "plain" else graph_s
        changes.append(t is not None and after_call(spec, t, kind, seconds))
    return changes


@pytest.mark.parametrize("plain, graph, expected", [
    ([1.0] * 6, [1.5] * 6, 1.5),
    ([1.0, 2.0] * 3, [1.1, 2.2] * 3, 1.1),          # the load varies alike
    ([1.0] * 5 + [9.0], [1.2] * 6, 1.2),            # one hiccup: medians hold
    ([], [], 0.0),
])
def test_gain_is_the_more_cautious_of_two_measures(plain, graph, expected):
    assert trial.gain(plain, graph) == pytest.approx(expected)


def test_a_trial_interleaves_plain_and_graph_calls_in_rounds():
    t = PlainTrial()
    order = []
    while not t.done:
        order.append(t.turn)
        t.record(t.turn, 1.0 if t.turn == "plain" else 2.0)
    assert order[:2] == ["plain", "graph"]  # untimed warm-up calls
    assert "".join(k[0] for k in order[2:]) == "pggppggppggp"
    assert len(t.times["plain"]) == len(t.times["graph"]) == trial.ROUNDS


def test_a_graph_clearly_faster_ends_the_trial_early():
    spec = _started()
    changes = _calls(spec, 2 + 2 * trial.EARLY_ROUNDS, 1e-3, 1e-4)
    assert changes[-1] and not any(changes[:-1])
    assert spec.plain.startswith("graph (it pays") and spec.plain_trial is None
    assert not spec.runs_plain


@pytest.mark.parametrize("plain_s, graph_s, runs_plain", [
    (1e-4, 3e-4, True),    # a tiny function: plain is 3x as fast
    (1e-4, 1e-4, False),   # a tie keeps the graph
    (1.02e-4, 1e-4, False),
])
def test_the_decision(plain_s, graph_s, runs_plain):
    spec = _started()
    assert sum(_calls(spec, 2 + 2 * trial.ROUNDS, plain_s, graph_s)) == 1
    assert spec.runs_plain is runs_plain
    assert spec.plain.startswith("plain (the graph does not pay" if runs_plain else
                                 "graph (it pays")
    assert "interleaved rounds of real calls" in spec.plain
    assert (spec.plain_trial is not None) is runs_plain  # a plain decision is watched


def test_two_plain_runs_over_the_bound_end_the_trial_the_graph_pays():
    spec = _started()
    t = spec.plain_trial
    assert not after_call(spec, t, "plain", 2 * plain_trial.MAX_PLAIN_S)  # a hiccup
    assert not after_call(spec, t, "graph", 1e-4)
    assert after_call(spec, t, "plain", 2 * plain_trial.MAX_PLAIN_S)
    assert spec.plain.startswith("graph (it pays: plain runs took over")
    assert spec.plain_trial is None and not spec.runs_plain


def test_plain_runs_that_raise_are_not_timed_and_give_up_after_a_few():
    spec = _started()
    t = spec.plain_trial
    for _ in range(plain_trial.MAX_RAISES - 1):
        assert not after_call(spec, t, "plain", 5.0, raised=True)
    assert t.turn == "plain" and not t.times["plain"] and t.untimed["plain"] == 1
    assert after_call(spec, t, "plain", 5.0, raised=True)
    assert spec.plain.startswith("graph (") and "raised" in spec.plain


def test_a_call_of_the_other_kind_or_of_a_concluded_trial_does_not_count():
    spec = _started()
    t = spec.plain_trial
    assert not after_call(spec, t, "graph", 9.0)  # another thread's call
    assert t.turn == "plain" and t.untimed == {"plain": 1, "graph": 1}
    assert not after_call(spec, PlainTrial(), "plain", 9.0)  # not spec's trial


def test_a_plain_decision_is_measured_again_when_its_calls_get_slower():
    spec = _started()
    _calls(spec, 2 + 2 * trial.ROUNDS, 1e-4, 3e-4)
    assert spec.runs_plain
    # as fast as measured (a few hiccups included): nothing happens
    for i in range(3 * plain_trial.WATCH):
        assert not _calls(spec, 1, 1e-3 if i % 4 == 0 else 1e-4, 3e-4)[0]
    # most calls in a window slower than SLOWER x the trial's median: a new trial
    changes = _calls(spec, plain_trial.WATCH, 1e-3, 3e-4)
    assert changes[-1] and sum(changes) == 1
    assert not spec.runs_plain and spec.plain_trial.recheck == 1
    assert spec.plain.startswith("measuring again (plain runs got slower; before: plain")
    # the inputs grew: the graph pays now, for good
    _calls(spec, 2 + 2 * trial.ROUNDS, 1e-3, 3e-4)
    assert spec.plain.startswith("graph (it pays") and "measured again 1x" in spec.plain
    assert spec.plain_trial is None and not spec.runs_plain


def test_at_most_max_rechecks_trials_again():
    spec = _started()
    rechecks = 0
    for _ in range(40):
        _calls(spec, 2 + 2 * trial.ROUNDS, 1e-4, 3e-4)  # plain wins every trial
        if spec.plain_trial is not None and spec.plain_trial.recheck > rechecks:
            rechecks = spec.plain_trial.recheck
        _calls(spec, plain_trial.WATCH, 1e-3, 3e-4)  # ... and its calls get slower
    assert rechecks == plain_trial.MAX_RECHECKS
    assert spec.runs_plain and spec.plain_trial.decided


def _jit(**config):
    cfg = types.SimpleNamespace(**{"plain_trial": True, **config})
    return types.SimpleNamespace(config=cfg, profile=types.SimpleNamespace(
        collective_strategy=None), stats=Stats())  # (none profiled: F378's rule is off)


@pytest.mark.parametrize("change, eligible", [
    ({}, True),
    ({"calls": plain_trial.START - 1}, False),   # the first call pays one-time costs
    ({"calls": plain_trial.START + 3}, False),   # tried only around START
    ({"plain": "graph (it pays ...)"}, False),   # decided for good
    ({"xla": "compiling"}, False),               # one trial at a time
    ({"trial": object()}, False),
    ({"context": (1, True)}, False),             # tf.distribute: every worker alike
    ({"distributed": True}, False),
    ({"subgraphs": (object(),)}, False),
])
def test_which_specializations_are_tried(change, eligible):
    assert plain_trial.eligible(_jit(), _spec(**change), 1e-4) is eligible


@pytest.mark.parametrize("plain_s, retried", [
    (2.5e-4, True),    # the graph won by 1.2x: measured once more
    (1e-3, False),     # by 5x: final
])
def test_a_close_graph_decision_is_measured_once_more(plain_s, retried):
    spec = _started()
    _calls(spec, 2 + 2 * trial.ROUNDS, plain_s, 2e-4)
    assert spec.plain.startswith("graph (it pays") and spec.plain_trial is None
    if not retried:
        assert spec.plain_retry_at == -1
        return
    assert spec.plain_retry_at == spec.calls + plain_trial.RETRY_AFTER
    spec.calls += 1  # (the caller counts graph calls)
    assert not plain_trial.eligible(_jit(), spec, 1e-4)
    spec.calls = spec.plain_retry_at
    assert plain_trial.eligible(_jit(), spec, 1e-4)
    plain_trial.start(spec, 1, spec.plain)
    assert spec.plain.startswith("measuring again (the graph won by little; before: graph")
    _calls(spec, 2 + 2 * trial.ROUNDS, 1e-4, 2e-4)  # this time plain wins
    assert spec.runs_plain and spec.plain.startswith("plain (")
    spec.plain_trial = None
    spec.calls += plain_trial.RETRY_AFTER  # a retried decision is not retried again
    assert not plain_trial.eligible(_jit(), spec, 1e-4)


def test_big_graphs_segments_and_the_switch_are_never_tried():
    assert not plain_trial.eligible(_jit(), _spec(), plain_trial.MAX_GRAPH_S)
    assert not plain_trial.eligible(_jit(plain_trial=False), _spec(), 1e-4)
    segment = _jit()
    segment.segment_of = object()  # fallback/segmented.py decides a segment's graph
    assert not plain_trial.eligible(segment, _spec(), 1e-4)


def test_a_clear_win_of_the_candidate_ends_the_rounds_early():
    rounds = trial.Rounds("graph", "plain")
    calls = 0
    while not rounds.done:
        rounds.record(rounds.turn, 0.012 if rounds.turn == "graph" else 0.170)
        calls += 1
    assert calls == 2 + 2 * trial.EARLY_ROUNDS and rounds.gain() > trial.CLEAR_WIN
    close = trial.Rounds("graph", "plain")  # 2x faster: not clear enough, all rounds
    while not close.done:
        close.record(close.turn, 0.05 if close.turn == "graph" else 0.1)
    assert len(close.times["graph"]) == trial.ROUNDS


def _trial_starts_at(graph_s) -> int | None:
    """The graph call of an untried specialization at which a trial starts when its
    calls take `graph_s(call)` (the caller asks `eligible` at calls START to START + 2
    and at `plain_retry_at`, as generation.py does), or None up to call 300."""
    spec, jit = _spec(), _jit()
    for call in range(1, 300):
        spec.calls = call
        if (call <= plain_trial.START + 2 or call == spec.plain_retry_at) and \
                plain_trial.eligible(jit, spec, graph_s(call)):
            return call
    return None


LATER, WINDOW, START = plain_trial.LATER, plain_trial.WINDOW, plain_trial.START


@pytest.mark.parametrize("graph_s, starts_at", [
    (lambda c: 1e-4, START),                                      # cheap at once
    (lambda c: 5e-3 if c <= START + 2 else 1e-3, LATER[0] + WINDOW - 1),  # 3 spikes (F364)
    (lambda c: 5e-3 if c < LATER[1] else 1e-3, LATER[1] + WINDOW - 1),    # longer load
    (lambda c: 1e-3 if c % 3 == 0 and c > 4 else 7e-3, None),     # a third cheap: median
    (lambda c: 1e-4 if c % 5 == 0 else 3e-3, None),               # a model's lucky calls
    (lambda c: 3e-3, None),                                       # a model: never tried
])
def test_calls_2_to_4_spiked_by_load_get_later_windows_decided_by_their_median(
        graph_s, starts_at):
    assert _trial_starts_at(graph_s) == starts_at


def test_a_later_window_puts_a_specialization_on_its_first_trial():
    spec, jit = _spec(), _jit()
    for call in range(START, LATER[0] + WINDOW):
        spec.calls = call
        started = (call <= START + 2 or call == spec.plain_retry_at) and \
            plain_trial.eligible(jit, spec, 5e-3 if call <= START + 2 else 1e-4)
    assert started and spec.plain_retry_at == -1 and spec.window_times == []
    plain_trial.start(spec, int(bool(spec.plain)), spec.plain)
    assert spec.plain.startswith("measuring (") and spec.plain_trial.recheck == 0
    _calls(spec, 2 + 2 * trial.ROUNDS, 1e-5, 1e-4)
    assert spec.runs_plain
    blocked = _spec(xla="compiling", calls=START + 2)  # not tried: no window either
    assert not plain_trial.eligible(jit, blocked, 5e-3) and blocked.plain_retry_at == -1
