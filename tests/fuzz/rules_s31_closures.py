"""Generator rules (session 31, fixer f5) for functions a call makes itself that TensorFlow
runs unconverted, closing over the program's objects (graphgen/made_closures.py: F340):
a `@tf.custom_gradient` made by a helper the step calls (`mc_make(MC.cfg)`), a reversal
layer whose `__call__` makes its gradient per call reading `self.lam`, a custom gradient
and a `tf.function` defined in the step over a local bound to a heap object, a
`tf.recompute_grad` lambda the step makes. Some calls replace the object (`MC.cfg =
MCfg(...)`), change its field, or anneal `MREV.lam` (some by a count of calls: between
any two calls): the graphs of the later calls must see it, through the object's source
(a guard on the call's own cell passed for ever).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.3

_CODE = '''\
class MCfg:
    """A setting object the step's per-call closures read."""
    def __init__(self, scale):
        self.scale = scale


class MHolder:
    def __init__(self):
        self.cfg = MCfg(1.0)
        self.calls = 0


MC = MHolder()
MPOOL = [MCfg(0.5), MCfg(2.0), MCfg(-1.0)]


def mc_make(cfg):
    """A custom gradient made per call, its gradient closing over `cfg`."""
    @tf.custom_gradient
    def mc_scaled(t):
        return tf.identity(t), lambda dy: dy * cfg.scale
    return mc_scaled


class MRev:
    """A gradient reversal whose call makes its gradient, reading `self.lam`."""
    def __init__(self):
        self.lam = 0.5

    def __call__(self, t):
        @tf.custom_gradient
        def mc_reverse(v):
            return tf.identity(v), lambda dy: -self.lam * dy
        return mc_reverse(t)


MREV = MRev()
'''

_CHANGES = [["MC.cfg = MPOOL[n % 3]"], ["MC.calls += 1", "MC.cfg = MPOOL[MC.calls % 3]"],
            ["MC.cfg.scale = 0.5 if flag else 1.5"], ["MREV.lam = 0.1 * (n % 5)"],
            ["MC.calls += 1", "MC.cfg.scale = 0.5 * (MC.calls % 4)"],
            ["MC.calls += 1", "MREV.lam = 0.5 - 0.1 * (MC.calls % 5)"]]
"""(Objects replaced from a pool: one the call made would escape it, a refusal.)"""


def _taped(g, made: list[str], call: str) -> list[str]:
    """`made` (definitions), then the gradient of `call(v) * v` for v = acc as floats."""
    t, v, gl = g.fresh("mct"), g.fresh("mcv"), g.fresh("mcl")
    return made + [
        f"with tf.GradientTape() as {t}:",
        f"    {v} = tf.cast(acc, tf.float32)",
        f"    {t}.watch({v})",
        f"    {gl} = tf.reduce_sum({call}({v}) * {v})",
        f"acc = acc + tf.cast({t}.gradient({gl}, {v}) * 0.1, acc.dtype)",
    ]


@rule(WEIGHT, max_depth=2)
def closures_made_in_the_call(g):
    """(F340) A function the call makes, run by TensorFlow unconverted, reading a heap
    object through its closure; some calls replace or change the object."""
    _helper(g, _CODE)
    cfg, fn = g.fresh("mccfg"), g.fresh("mcf")
    kind = g.choice(["helper", "reverse", "nested", "tf_function", "recompute"])
    if kind == "helper":
        use = _taped(g, [], "mc_make(MC.cfg)")
    elif kind == "reverse":
        use = _taped(g, [], "MREV")
    elif kind == "nested":
        use = _taped(g, [f"{cfg} = MC.cfg", "@tf.custom_gradient", f"def {fn}(v):",
                         f"    return tf.identity(v), lambda dy: dy * {cfg}.scale"], fn)
    elif kind == "tf_function":
        use = [f"{cfg} = MC.cfg", "@tf.function", f"def {fn}(v):",
               f"    return v * {cfg}.scale",
               f"acc = acc + tf.cast({fn}(tf.cast(acc, tf.float32)) * 0.1, acc.dtype)"]
    else:
        use = _taped(g, [f"{cfg} = MC.cfg",
                         f"{fn} = tf.recompute_grad(lambda h: h * {cfg}.scale)"], fn)
    change = g.choice(_CHANGES)
    change = g.choice([change, [f"if {g.pcond()}:"] + [f"    {line}" for line in change]])
    return g.choice([change + use, use + change, use + change])
