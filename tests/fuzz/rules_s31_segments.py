"""Generator rules (session 31) from the split-function probes (F326-F328): a function
split at a graph break (`float(...)` of a tensor) whose segment holds a rarely taken
branch with a print or a heap update on a host counter (`s.count += 1; if s.count % 3
== 1: print(...)`: a graph per outcome, F326), a step that stops early (after a flag
in the state the tensor work is skipped: the split's cost drifts, F327), and work done
every k-th call only (a costlier path every few calls: the whole trial's rounds, F328).
janus keeps graphs per outcome, tries the split again when its calls get cheaper, and
measures all rounds; results, prints and the heap must stay plain Python's.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_RARE = [
    'print("block", s.count // {k}, "acc", round(float(tf.reduce_sum(acc)), 3))',
    'print("starting block", s.count // {k})',
    "s.total = s.total + 1.0",
    "s.d['blocks'] = s.d.get('blocks', 0) + 1",
]
_WORK = [
    "acc = tf.tanh(acc * 0.5 + x * 0.25)",
    "acc = acc * 0.9 + tf.reduce_mean(x) * 0.1",
    "acc = acc + tf.reduce_sum(tf.sin(acc)) * 0.01",
]
_BREAKS = [
    "s.hist.append(round(float(tf.reduce_sum(acc)), 4))",
    "s.d[s.count] = round(float(tf.reduce_mean(acc)), 4)",
    "s.total = s.total + float(tf.reduce_max(acc))",
]


@rule(0.5, max_depth=1, eager=True)
def split_rare_branch(g):
    """(F326) A host counter bumped every call, a branch taken every k-th call with a
    print or heap update, tensor work, and a break after it (or before it)."""
    k = g.choice([2, 3, 5])
    rare = g.choice(_RARE).format(k=k)
    work = [g.choice(_WORK) for _ in range(g.rng.randint(1, 2))]
    counted = ["s.count += 1", f"if s.count % {k} == {g.choice([0, 1])}:", f"    {rare}"]
    brk = g.choice(_BREAKS)
    if g.chance(0.5):
        return counted + work + [brk]
    return work + [brk] + counted + [g.choice(_WORK)]


@rule(0.4, max_depth=1, eager=True)
def split_stops_early(g):
    """(F327) Early stopping: once a flag in the state is set, the tensor work and its
    break are skipped (the calls become trivial)."""
    limit = g.choice([3, 6, 9])
    work = [g.choice(_WORK) for _ in range(g.rng.randint(1, 2))]
    return ["if not s.d.get('stopped', False):"] + \
        [f"    {w}" for w in work] + [f"    {g.choice(_BREAKS)}",
                                     "    s.count += 1",
                                     f"    if s.count >= {limit}:",
                                     "        s.d['stopped'] = True"]


@rule(0.4, max_depth=1, eager=True)
def split_every_kth_call(g):
    """(F328) Tensor work done on every k-th call only (an update after accumulating),
    with a break in the function."""
    k = g.choice([2, 3])
    heavy = g.choice(_WORK)
    return [f"if n % {k} == 0:", f"    {heavy}", f"    {heavy}",
            g.choice(_BREAKS)]
