"""Generator rules (session 31) for numpy arrays on the heap indexed by a Python int that
changes from call to call (a diffusion step's `abar[t]`: F345). janus feeds the int and
gathers the item (or row) in the graph, bounds-checked: negative indices wrap, one out
of range fails the graph and the call reruns plainly, where numpy raises IndexError. The
arrays are module globals and class attributes of `State`, some written in place by a
call (under a test), so later graphs must read their current items.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper, _method

_ARRAYS = '''\
G_SCHED = np.cumprod(1.0 - np.linspace(0.05, 0.4, 8)).astype(np.float32)
G_TAB = np.arange(15.0).reshape(5, 3) * 0.25
G_IDS = np.array([3, -1, 4, 1, -5, 9], np.int64)
'''

_CLASS_ARRAY = "    BETAS = np.linspace(0.1, 0.8, 6)  # (a class attribute: s.BETAS)\n"

_INDICES = ["n", "k", "-n - 1", "n - 4", "s.count % 5", "s.count", "len(s.hist)",
            "k % 3", "(s.count * 3 + n) % 7 - 3", "-len(s.hist)"]

_USES = [
    "acc = acc * G_SCHED[{i}]",
    "acc = acc + tf.sqrt(G_SCHED[{i}]) - tf.sqrt(1.0 - G_SCHED[{i}])",
    "s.total = s.total + float(G_SCHED[{i}])",
    "acc = acc * (G_SCHED[{i}] * 2.0 - 0.5)",
    "acc = acc + tf.cast(tf.reduce_sum(G_TAB[{i}]), acc.dtype)",
    "acc = acc * float(G_TAB[{i}, 1])",
    "acc = acc + float(G_TAB[{i}, -1] - G_TAB[0, 0])",
    "k = k + int(G_IDS[{i}])",
    "acc = acc + float(s.BETAS[{i}])",
    "{ab} = G_SCHED[{i}]\nacc = tf.sqrt({ab}) * acc + tf.sqrt(1.0 - {ab}) * x",
]

_WRITES = ["G_SCHED[2] = 0.5 + 0.1 * (n % 3)", "G_TAB[1, 1] = float(k)",
           "G_SCHED[-1] = G_SCHED[-1] * 0.5", "G_IDS[0] = n"]


@rule(0.6, max_depth=2)
def array_per_call_index(g):
    """A module/class numpy array indexed by a per-call Python int (the call count, an
    argument, a length; negative ones; ones that leave the array's range at some call),
    maybe after the call counts itself or writes the array in place (under a test)."""
    _helper(g, _ARRAYS)
    _method(g, _CLASS_ARRAY)
    lines = []
    if g.choice([True, False]):
        lines.append("s.count += 1")
    if g.rng.random() < 0.3:
        lines += [f"if {g.pcond()}:", f"    {g.choice(_WRITES)}"]
    for _ in range(g.rng.randint(1, 2)):
        lines += g.choice(_USES).format(i=g.choice(_INDICES), ab=g.fresh("ab")).split("\n")
    return lines
