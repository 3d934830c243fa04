"""Generator rules (session 39) for Python ints a loop that breaks on a tensor carries
(F452, janus/graphgen/loop_bounds.py): a counter stepped by constants (`s.count += 1`,
an environment's `self.steps += 1` inside its `step` method, a count down, two steps in
one iteration, a step after the exit test) keeps a static bound by induction over the
loop's known length; a counter grown otherwise (`* 1000 + 7`, `+ i`, `% 7`) is checked
against the bound, and one that leaves int64 (Python's big ints) reruns the call
plainly. What follows uses the counter: as a float, scaled past int32, appended.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_STEPPER = '''\
class BdStepper:
    def __init__(self):
        self.steps = 0
        self.pos = 0.0

    def step(self, push):
        self.pos = self.pos + (0.3 if push > 0 else -0.2)
        self.steps += 1
        return bool(abs(self.pos) > 1.0 or self.steps >= 9)


BD_ENV = BdStepper()
'''

_STEPS = ["{c} += 1", "{c} -= 2", "{c} += 3", "{c} = {c} + 1 - 1",  # (verified: constants)
          "{c} = {c} * 1000 + 7",  # (checked: leaves int64 after 7 iterations)
          "{c} = {c} + {i}", "{c} = ({c} + 1) % 7", "{c} = {c} * 2 - 1"]  # (checked)
_USES = ["acc = acc + float({c}) * 0.01", "out.append({c})", "s.hist.append({c} % 5)",
         "acc = acc + tf.cast({c} * (2 ** 40) % 3, acc.dtype)", "k = k + {c} % 4",
         "pass"]


@rule(0.6, max_depth=1)
def carried_ints(g):
    """A `for` over a range that breaks on a tensor test (or the counter), its body
    stepping a Python int counter (the state's `count`, or a local), maybe twice or
    after the test; the counter read in the body and after the loop."""
    i, h = g.fresh("bi"), g.fresh("bh")
    c = g.choice(["s.count", "k", g.fresh("bc")])
    lines = []
    if c not in ("s.count", "k"):
        lines.append(f"{c} = {g.choice(['0', 'n', '-3'])}")
    elif g.chance(0.5):
        lines.append(f"{c} = {g.choice(['0', 'n % 3', '5'])}")
    step = g.choice(_STEPS).format(c=c, i=i)
    lines += [f"{h} = acc",
              f"for {i} in range({g.choice(['6', '12', 'n + 3', 'len(xs) + 4'])}):",
              f"    {h} = {h} * 0.8 + 0.3"]
    if g.chance(0.8):
        lines.append(f"    {step}")
    if g.chance(0.3):
        lines.append(f"    {h} = {h} + tf.cast({c} % 3, {h}.dtype) * 0.1")
    test = g.choice([f"tf.reduce_sum({h}) > {g.choice(['1.0', '4.0', '20.0'])}",
                     f"tf.reduce_max({h}) > 0.9 or {c} >= {g.choice(['4', '8', 'n + 5'])}",
                     f"{c} > 50 or tf.reduce_min({h}) > 1.5"])
    lines += [f"    if {test}:", "        break"]
    if g.chance(0.5):  # (after the exit test: the value at the test where it stops)
        lines.append(f"    {g.choice(_STEPS[:4]).format(c=c, i=i)}")
    lines.append(g.choice(_USES).format(c=c))
    lines.append(f"acc = acc + {h} * 0.1")
    return lines


@rule(0.4, max_depth=1)
def env_steps(g):
    """An environment object's `step` method advancing its own `self.steps += 1`, called
    in a loop that breaks on what it returns (the actor-critic's CartPole), reset first
    or not; its counter and position read after the loop."""
    _helper(g, _STEPPER)
    t, h = g.fresh("bt"), g.fresh("bh")
    lines = []
    if g.chance(0.7):
        lines += ["BD_ENV.steps = 0", "BD_ENV.pos = 0.0"]
    lines += [f"{h} = acc",
              f"for {t} in range({g.choice(['8', '20', 'n + 4'])}):",
              f"    {h} = {h} * 0.9 + 0.2",
              f"    done = BD_ENV.step(tf.reduce_sum({h}) - {g.choice(['1.0', '2.5'])})",
              "    if done:",
              "        break",
              g.choice(["acc = acc + float(BD_ENV.steps) * 0.1",
                        "out.append(BD_ENV.steps)",
                        "acc = acc + BD_ENV.pos",
                        "s.count = s.count + BD_ENV.steps"])]
    return lines
