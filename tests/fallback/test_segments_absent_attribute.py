"""A function janus splits because it tests an attribute an object lacks
(`getattr(s, "best", None)`: janus cannot guard an absence), whose tensor `if` fails its
guard as objects change: no effect runs twice and no branch runs that plain Python does
not take (fuzz v19, seed 540051: F40, the regression program in tests/fuzz/regressions).
Its values are exact in float32, so a graph rounds them as eager does: F40's divergence
itself was Grappler's rounding (tests/fuzz/test_compare.py)."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Best:
    def __init__(self):
        self.count = 0
        self.calls = 0
        self.log = []


class Objects:
    """The objects the calls pass (one kept, one alternative, fresh ones), so the heap
    compared after each call holds them all."""

    def __init__(self):
        self.main, self.alt, self.made = Best(), Best(), []

    def fresh(self) -> Best:
        self.made.append(Best())
        return self.made[-1]


def keep_best(s, x, n):
    s.calls += 1
    acc = x * 2.0 + 1.0  # (halves: exact in float32)
    loss = tf.reduce_sum(acc * acc) + n
    if getattr(s, "best", None) is None or loss < s.best:
        s.best = loss
        s.count += 1
        s.log.append(n)


def test_best_kept_across_objects_with_absent_attribute(any_size):
    x = tf.constant(np.array([[0.5, -1.0, 1.5], [0.0, 2.0, -0.5]], np.float32))
    lower = x * 0.5

    def on(which, value, n=0):
        def call(state):
            s = state.fresh() if which == "new" else getattr(state, which)
            return s, value, n
        return call

    calls = [on("main", x)] * 4 + [on("new", x)] * 2 + [on("alt", x)] * 3 + \
        [on("alt", x, 4), on("alt", lower), on("alt", lower, -1), on("main", x, 2),
         on("main", lower), on("new", lower)]
    jitted = janus.jit(keep_best)
    stats = assert_same(keep_best, calls, Objects, jitted=jitted)
    assert stats.segmented_calls > 0, stats  # split at the refused absence
    assert sum(stats.guard_failures.values()) > 0, stats  # and reran after guard failures
    assert any(janus.stats(seg.jit).graph_calls for seg in jitted.segmented.all_segments())
