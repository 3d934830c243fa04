"""The XLA decision on made-up timings (graphgen/xla_trial.py): which variant a trial
runs when, what it keeps, when a kept variant is measured again. No timed tests: the
times are fed in."""
import types

import pytest

from janus.graphgen import xla_trial
from janus.graphgen.xla_trial import XlaTrial, after_call, verdict


@pytest.mark.parametrize("xla, plain, keep", [
    ([1.0] * 6, [1.2] * 6, True),                          # clearly faster
    ([1.0] * 6, [1.0] * 6, False),                         # a tie keeps the plain graph
    ([1.0] * 6, [1.04] * 6, False),                        # under MIN_GAIN
    ([1.2] * 6, [1.0] * 6, False),                         # slower
    ([0.5, 1.0, 1.0, 1.0, 1.0, 1.0], [0.9, 1.0, 1.0, 1.0, 1.0, 1.0], False),  # one lucky call
    ([1.0, 2.0, 1.0, 2.0, 1.0, 2.0], [1.1, 2.2, 1.1, 2.2, 1.1, 2.2], True),  # load varies alike
    ([1.0, 1.0, 1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0, 2.0, 2.0], False),  # medians only
    ([], [], False),
])
def test_verdict(xla, plain, keep):
    kept, gain, text = verdict(xla, plain)
    assert kept == keep
    assert text.startswith("on (" if keep else "off (")
    if xla:
        assert f"{gain:.2f}x" in text and f"{len(xla)} interleaved rounds" in text


def _run_trial(trial, seconds):
    """Feed `trial` calls until done; `seconds[kind]` is what a call of that kind took."""
    order = []
    while not trial.done:
        kind = trial.turn
        order.append(kind)
        trial.record(kind, seconds[kind])
    return order


def test_a_trial_interleaves_xla_and_plain_calls_in_rounds():
    trial = XlaTrial(variant=object())
    order = _run_trial(trial, {"xla": 1.0, "plain": 1.2})
    assert order[:2] == ["xla", "plain"]  # untimed warm-up calls
    assert "".join(k[0] for k in order[2:]) == "xppxxppxxppx"
    assert len(trial.times["xla"]) == len(trial.times["plain"]) == xla_trial.ROUNDS


def test_a_call_of_the_other_variant_does_not_count():
    trial = XlaTrial(variant=object())
    trial.record("plain", 9.0)  # another thread's call, started before the turn changed
    assert trial.turn == "xla" and trial.untimed == {"xla": 1, "plain": 1}


def test_a_clear_loss_ends_the_trial_early():
    trial = XlaTrial(variant=object())
    order = _run_trial(trial, {"xla": 2.0, "plain": 1.0})
    assert len(order) == 2 + 2 * xla_trial.EARLY_ROUNDS


def _spec():
    return types.SimpleNamespace(xla="measuring", trial=None, accelerated=None)


def _variant():
    return types.SimpleNamespace(watch=None)


def _calls(spec, n, xla_s, plain_s):
    """`n` graph calls of `spec` as the caller makes them; the changes reported."""
    changes = []
    for _ in range(n):
        trial = spec.trial
        used_xla = trial.turn == "xla" if trial is not None else spec.accelerated is not None
        changes.append(after_call(spec, trial, used_xla, xla_s if used_xla else plain_s))
    return [c for c in changes if c]


def test_kept_then_measured_again_when_slower_then_dropped():
    spec, variant = _spec(), _variant()
    spec.trial = XlaTrial(variant)
    assert _calls(spec, 2 + 2 * xla_trial.ROUNDS, 1.0, 1.5) == ["decided"]
    assert spec.accelerated is variant and spec.xla.startswith("on (1.50x")
    # kept calls as fast as measured: nothing happens
    assert _calls(spec, 3 * xla_trial.WATCH, 1.0, 1.5) == []
    # kept calls now slower than the plain graph was: measured again at once
    assert _calls(spec, xla_trial.WATCH, 2.0, 1.5) == ["decided"]
    assert spec.trial is not None and spec.accelerated is None and spec.trial.recheck == 1
    assert spec.xla.startswith("measuring again (kept before: on")
    assert _calls(spec, 2 + 2 * xla_trial.ROUNDS, 2.0, 1.5) == ["dropped"]
    assert spec.accelerated is None and spec.trial is None
    assert spec.xla.startswith("off (XLA was 0.75x") and "turned off" in spec.xla
    assert _calls(spec, 3 * xla_trial.WATCH, 2.0, 1.5) == []  # off for good


def test_a_kept_variant_is_measured_again_periodically_and_at_most_max_rechecks_times(
        monkeypatch):
    monkeypatch.setattr(xla_trial, "RECHECK_AFTER", 10)
    spec, variant = _spec(), _variant()
    spec.trial = XlaTrial(variant)
    rechecks = 0
    for _ in range(200):
        changes = _calls(spec, 1, 1.0, 1.5)  # XLA stays faster: kept after each check
        if spec.trial is not None and spec.trial.recheck > rechecks:
            rechecks = spec.trial.recheck
            assert changes == ["decided"]
    assert rechecks == xla_trial.MAX_RECHECKS
    assert spec.accelerated is variant and spec.trial is None
    assert spec.xla.startswith("on (1.50x") and f"measured again {rechecks}x" in spec.xla
