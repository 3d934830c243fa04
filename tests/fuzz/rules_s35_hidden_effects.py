"""Generator rules (session 35) for effects that go through no call janus sees (F405): a
store of a `global`, entering the program's own context manager, a read through its
property, an item read through its `__getitem__` — then a `raise` on some calls (a
tensor test or a Python one). A profiled call, or the eager rerun after an in-graph
guard failed, that raised with no effect counted was rerun plainly: the effect twice.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CLASSES = '''\
class HTimer:
    """A context manager counting its entries."""
    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc_info):
        return False


class HSched:
    """A schedule whose property advances it, a config whose items count their reads."""
    def __init__(self):
        self.t = 0
        self.reads = 0

    @property
    def lr(self):
        self.t += 1
        return 1.0 / self.t

    def __getitem__(self, key):
        self.reads += 1
        return len(key) / 10.0


H_TIMER = HTimer()
H_SCHED = HSched()
H_STEPS = 0
'''

_EFFECTS = [
    ["H_STEPS += 1"],
    ["H_STEPS = H_STEPS + n + 1"],
    ["with H_TIMER:", "    acc = acc * 0.75"],
    ["acc = acc * H_SCHED.lr"],
    ["acc = acc + H_SCHED['scale']"],
]


@rule(0.6, max_depth=1)
def hidden_effect_then_raise(g):
    """(F405) An effect through no call (a global store, the program's context manager,
    property or `__getitem__`), then a `raise` on some calls."""
    _helper(g, _CLASSES)
    effect = g.choice(_EFFECTS)
    if effect[0].startswith("H_STEPS"):
        g.globals_declared.add("H_STEPS")
    test = g.choice([f"tf.reduce_sum(acc) > {g.choice(['2.0', '6.0', '30.0'])}",
                     f"n % {g.choice(['3', '4'])} == 2", g.pcond()])
    return effect + [f"if {test}:", "    raise FloatingPointError('diverged')"]
