"""A function janus runs plainly for good: its calls cost the function and a few counters.

Once janus cannot make a graph of a function (`jit.unsupported`: an unsupported
construct, generations given up, janus's own internal error) and nothing of it is left to
run as a graph — no segment of its split (fallback/segmented.py), no callee's graph or
optimizer update through the mixed runtime (fallback/mixed.py) — every later call runs
the user's function as it is. Before, each such call still went through janus's decision
(the lock, the reason, the event, the split, the runner: 40-200 us a call on the zoo's
p12, 8% of its 2.5 ms step). `settle` marks such a function after a call; the first check
of `JitFunction.__call__` then runs it at once, counting it as before (calls,
fallback_calls, its reason, a split call) without timing it.

What could change the decision unsettles it: a change of `janus.config` (strict,
disabled, segments, mixed, a function's options) or of the event subscribers (a log of
every fallback), both read by `epoch()`, and `reset()`. Never settled: a function under a
multi-worker strategy (every worker takes part in deciding each call:
fallback/agreement.py), and unsupported calls in strict mode (they raise).
"""
from __future__ import annotations

from janus import events
from janus.config import Config
from janus.errors import FallbackCategory
from janus.fallback.mixed import MixedRunner
from janus.fallback.safety import InternalReason
from janus.stats import OTHER


def epoch() -> tuple:
    """What a settled decision assumed: the config and the event subscribers as they were
    (`JitFunction.__call__` compares the first two items of `_settled` with
    `config.CHANGES[0]` and `events.CHANGES[0]` itself: no call on the fast path)."""
    return Config.version(), events.version()


def settle(jit, step, cfg) -> None:
    """After `jit` ran a call plainly for `step` (an `EagerRun`) under `cfg` (its lock
    held): mark it settled if every later call will run its function as it is."""
    if step.category is FallbackCategory.INTERNAL:
        plain = isinstance(jit.unsupported, InternalReason)
    elif step.category is FallbackCategory.UNSUPPORTED and step.mode == "mixed":
        plain = jit.unsupported is not None and not cfg.strict and _runs_as_it_is(jit, cfg)
    else:
        return
    if not plain or jit.profile.collective_strategy is not None or \
            events.hears_repeats("fallback"):
        jit._settled = None
        return
    reason = step.category.value
    if reason not in jit.stats.fallback_reasons:  # (counted as OTHER: at the limit)
        reason = OTHER
    jit._settled = epoch() + (reason, int(bool(cfg.segments and jit.segmented)))


def unsettle(jit) -> None:
    """Forget `jit`'s settled decision (its next call decides again)."""
    jit._settled = None


def _runs_as_it_is(jit, cfg) -> bool:
    """Whether `_eager`'s unsupported path now runs `jit.fn` itself, and will."""
    split = jit.segmented if cfg.segments else None
    if split:
        return split.runs_as_it_is()
    if not cfg.mixed:
        return True
    runner = jit._mixed_runner
    return runner is None or runner.plain and runner.fn is jit.fn


def runs_as_it_is(runner, fn) -> bool:
    """Whether a split function's `runner` is `fn` itself, or mixed and decided plain."""
    return runner is fn or isinstance(runner, MixedRunner) and runner.plain and runner.fn is fn
