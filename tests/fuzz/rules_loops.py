"""Generator rules for loops janus builds as one tf.while_loop while they write the heap
(janus/graphgen/loop_heap.py, v35): an environment object of the module stepped until
it says done, its numpy state, Python step counter and a tensor attribute carried
through the loop; an attribute written after the exit test (kept at its value where the
loop stops); `done` an `or` of a numpy bool and a Python bool (a MixedBool in the
graph: only its truth may be used; its repr or type must not leak). Results as `repr`
text in `s.hist` (compared exactly).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_WALKER = '''class {name}:
    """A walker with a numpy state, a Python step counter and a tensor total."""

    def __init__(self):
        self.state = np.array([0.01, -0.02])
        self.steps = 0
        self.total = tf.constant(0.0)
        self.last = 0.0

    def step(self, push):
        x, v = self.state
        force = {force}
        v = v + 0.1 * force
        x = x + 0.1 * v
        self.state = np.array([x, v])
        self.steps += 1
        done = {done}
        return self.state.astype(np.float32), {reward}, {convert}
'''
_FORCES = ["0.5 if push > 0 else -0.3", "0.4 if push > 0.1 else -0.6",
           "(0.5 if push > 0 else -0.3) * 2.0"]
_DONES = ["abs(x) > {lim} or self.steps >= {cap}", "bool(abs(x) > {lim}) or self.steps >= {cap}",
          "self.steps >= {cap} or abs(v) > {lim}", "abs(x) > {lim} and self.steps > 1 or "
          "self.steps >= {cap}"]
_PUSHES = ["tf.reduce_sum(x) * 0.1 + tf.reduce_sum(tf.convert_to_tensor({ob}))",
           "tf.reduce_mean(acc) - 0.02 * {t}", "tf.reduce_sum(tf.convert_to_tensor({ob})) - "
           "0.1 * n", "tf.reduce_max(x) * 0.3 - {t} * 0.04"]


@rule(0.6)
def heap_episode(g):
    """An environment of the module stepped in a `for` over a range until done: heap
    attributes written in every iteration, lists grown, a counter kept, maybe an
    attribute written after the exit test; reset or not before the loop."""
    name, env = g.fresh("Walk"), g.fresh("WALK_")
    t, ob, rw, dn, rs = (g.fresh(p) for p in ("wt", "wo", "wr", "wd", "wrs"))
    done = g.choice(_DONES).format(lim=g.choice(["0.3", "1.0", "2.5"]),
                                   cap=g.choice(["3", "12", "30"]))
    g.helpers.append(_WALKER.format(name=name, force=g.choice(_FORCES), done=done,
                                    reward=g.choice(["1.0", "float(x)", "x * 2.0"]),
                                    convert=g.choice(["bool(done)", "bool(done)", "done"])))
    g.helpers.append(f"{env} = {name}()\n")
    lines = []
    if g.chance(0.6):
        lines += [f"{env}.state = np.array([0.01 * (n % 3), -0.02])", f"{env}.steps = 0"]
    lines += [f"{ob} = {env}.state.astype(np.float32)", f"{rs} = []",
              f"for {t} in range({g.choice(['40', 'n + 8', '6'])}):",
              f"    push = {g.choice(_PUSHES).format(ob=ob, t=t)}",
              f"    {ob}, {rw}, {dn} = {env}.step(push)",
              f"    {rs}.append({rw})"]
    if g.chance(0.4):
        lines.append(f"    {env}.total = {env}.total + push")
    if g.chance(0.2):  # (its type leaks: the graph must refuse it)
        lines.append(f"    s.hist.append(repr({dn}))")
    lines += [f"    if {dn}:", "        break"]
    if g.chance(0.4):
        lines.append(f"    {env}.last = push * 2.0")
    lines += [f"s.hist.append(repr(len({rs})) + repr({env}.steps))",
              f"s.hist.append(repr({env}.state.tolist()))",
              f"acc = acc + {env}.total + {env}.last"]
    return lines
