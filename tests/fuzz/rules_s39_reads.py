"""Generator rules (session 39) for a tensor's value read where it stands and computed
with (F461): the accuracy-counting line of an evaluation loop (`s.count +=
int(tf.reduce_sum(hits))`), a running total (`s.total = s.total + float(loss) * 2`,
`s.total += float(l) / n`), a dict entry's count (`s.d['n'] += int(...)`), `//` and `%`
of an int read, `int()` of a float read (truncated), a sign, a power; numpy scalars summed
(`tot += t.numpy()`) and accumulated on the heap (an np.float32 from the first call on),
a bool or int vector's `.numpy().sum()` counted (`.mean()` of a bool one), and
arithmetic with a numpy call's value (still a break). Once a graph break each, now kept
in the graph where Python's number or numpy's scalar is what the graph computes.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_FLOATS = ["tf.reduce_sum(acc)", "tf.reduce_mean(acc)", "tf.reduce_max(acc)", "s.h",
           "tf.reduce_min(x)"]
_INTS = ["tf.reduce_sum(tf.cast(acc > 0, tf.int32))", "tf.argmax(tf.reshape(acc, [-1]))",
         "tf.size(acc)", "tf.reduce_sum(tf.cast(x > acc, tf.int64))"]


@rule(0.6, max_depth=2)
def computed_reads(g):
    """(F461) `int()`/`float()` of a scalar where it stands, an operand of arithmetic or
    an augmented assignment's value, its result counted, summed, stored or returned."""
    f, i = g.choice(_FLOATS), g.choice(_INTS)
    return g.choice([
        [f"s.count += int({i})"],
        [f"s.count = s.count + int({i}) * 2 - int({g.choice(_INTS)})"],
        [f"s.total += float({f})"],
        [f"s.total += float({f}) / (k + 1)"],
        [f"s.total = s.total + float({f}) * 2"],
        [f"s.total = 0.5 * s.total - float({f})"],
        [f"k = k + int({i}) // 2 + int({g.choice(_INTS)}) % 3"],
        [f"k = k + int({i}) // (n + 1)"],
        ["s.d.setdefault('n', 0)", f"s.d['n'] += int({i})"],
        [f"s.d['loss'] = s.d.get('loss', 0.0) + float({f})"],
        [f"out.append(-float({f}) * 2 + 1)"],
        [f"out.append(float({f}) ** 2)"],
        [f"acc = acc + float({f}) * 0.5"],
        [f"s.total += int({i}) * 0.25"],
        [f"s.count += int({f})"],  # (int() of a float: truncated, as Python)
    ])


@rule(0.3, max_depth=2)
def numpy_scalar_sums(g):
    """(F461) numpy scalars read with `.numpy()` and summed (numpy's float32 arithmetic),
    accumulated on the heap (an np.float32 there from the first call on), a vector's
    `.numpy().sum()` / `.mean()` (a count), arithmetic with a numpy call's value (a
    break)."""
    f, f2 = g.choice(_FLOATS), g.choice(_FLOATS)
    tot = g.fresh("tot")
    return g.choice([
        [f"{tot} = 0.0", f"{tot} += {f}.numpy()", f"{tot} += {f2}.numpy() * 2.0",
         f"s.hist.append({tot})"],
        [f"out.append({f}.numpy() - {f2}.numpy())"],
        [f"s.total += {f}.numpy()"],
        ["s.count += (acc > 0).numpy().sum()"],
        [f"s.hist.append(tf.cast(acc > {f}, tf.int32).numpy().sum() * 2)"],
        ["s.total = s.total + (acc < 0).numpy().mean()"],
        [f"s.total += float({f}) + np.sqrt(2.0)" if g.chance(0.5) else
         f"s.total += float({f}) * np.float32(0.5)"],
    ])
