"""Generator rules (session 39) for periodic tests on a Python step counter (F455): a
training loop that logs every N steps and resets or records its metrics every M. The
counter is fed to the graph once it changes; each test is traced for the outcome it has
in the call being traced (janus/graphgen/known_numbers.py), and a call meeting an
outcome no graph has traces that graph at once (janus/outcomes.py). Periods 2, 3 and 5,
one or two tests (maybe on an offset or a product of the counter), a print, an append or
a reset in the branches, `elif`, a test on the counter inside a loop, and one whose
branch holds what a graph refuses (`.numpy()` kept in a list).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_PERIODS = (2, 3, 5)

_BODIES = [
    "    print(f'step {s.count}: {float(tf.reduce_sum(acc)):.3f}')",
    "    print('step', s.count, 'at', k)",
    "    s.hist.append(float(tf.reduce_mean(tf.cast(acc, tf.float32))))",
    "    s.hist.append(s.count)",
    "    s.total = 0.0",
    "    s.total = s.total + 1.5",
    "    s.h = s.h * 0.0",
    "    s.d['last'] = s.count",
    "    acc = acc * 0.5",
]


def _test(g, period: int) -> str:
    """A test true every `period`-th call of the counter, in one of a few spellings."""
    c = g.rng.randint(0, period - 1)
    return g.choice([
        f"s.count % {period} == {c}",
        f"(s.count + {c}) % {period} == 0",
        f"s.count // {period} * {period} == s.count",
        f"(s.count * 2 + 1) % {period} == 1",
        f"-s.count % {period} == 0",
    ])


@rule(0.5, max_depth=1)
def periodic_counter_tests(g):
    """(F455) A step counter, then one or two periodic tests on it, each with a print, an
    append or a reset in its branch (a second test may be an `elif`)."""
    lines = ["s.count += 1"]
    first = g.choice(_PERIODS)
    lines += [f"if {_test(g, first)}:", g.choice(_BODIES)]
    if g.chance(0.7):
        second = g.choice(_PERIODS)
        lines += [f"{g.choice(['if', 'if', 'elif'])} {_test(g, second)}:", g.choice(_BODIES)]
        if g.chance(0.3):
            lines.append(g.choice(_BODIES))
    if g.chance(0.3):
        lines += ["else:", "    s.total = s.total + 0.25"]
    return lines


@rule(0.3, max_depth=1)
def periodic_counter_mixed(g):
    """(F455) A periodic test combined with a Python or tensor condition, a warm-up test
    on the counter, or a periodic test in a loop over a small range."""
    period = g.choice(_PERIODS)
    return ["s.count += 1"] + g.choice([
        [f"if {_test(g, period)} and {g.pcond()}:", g.choice(_BODIES)],
        [f"if {_test(g, period)} and {g.tcond()}:", "    s.total = s.total + 1.0"],
        [f"if s.count > {g.rng.randint(2, 6)}:", "    acc = acc * 0.9",
         f"if {_test(g, period)}:", g.choice(_BODIES)],
        [f"for pi in range({g.rng.randint(1, 3)}):",
         f"    if (s.count + pi) % {period} == 0:",
         "        print('sub', s.count, pi)",
         "        acc = acc + 0.5"],
    ])


@rule(0.2, max_depth=1)
def periodic_counter_refused(g):
    """(F455) A periodic test whose branch holds what a graph refuses (a value read into
    a numpy array kept in the heap): its outcome's trace fails where the other's serves."""
    period = g.choice(_PERIODS)
    return ["s.count += 1",
            f"if {_test(g, period)}:",
            "    s.d['saved'] = acc.numpy()",
            "    s.total = s.total + 1.0"]
