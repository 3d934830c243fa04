"""Generator rules (session 28, v74) from session 28's slowdown probes: common research
code that session 27's guards and refusals sent to plain Python for good, which must run
as graphs again without giving up what those refusals fixed. Namedtuples of Python
numbers that change, read by attribute and by index (F252); `@tf.custom_gradient`
functions reading constants (F253); Keras Losses and Metrics whose hooks read settings
and variables only (F254).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HP = '''\
import collections

HP = collections.namedtuple("HP", ["gp", "steps"])
G_HP = HP(0.1, 2)
G_HPS = [HP(0.25, 1)]


@JIT
def hp_apply(hp, t):
    """A jitted callee given a namedtuple of numbers made in the call."""
    return t * hp.gp + hp[1] * 0.5
'''

_HP_CHANGES = [
    "G_HP = HP(G_HP.gp * 0.5 + 0.1 * (n % 2), k % 3 + 1)",
    "G_HP = HP(0.1 * (n % 3 + 1), G_HP.steps)",
    "G_HP = G_HP._replace(gp=G_HP[0] + 0.05)",
    "G_HPS.append(HP(0.05 * (n + 1), n % 2))",
]
_HP_READS = [
    "acc = acc + acc * G_HP.gp",
    "acc = acc * G_HP[0] + tf.cast(G_HP.steps, acc.dtype)",
    "k = k + G_HP.steps",
    "out.append(G_HP.gp)",
    "s.total = s.total + G_HP.gp * 2.0",
    "acc = acc + G_HPS[-1].gp * tf.cast(G_HPS[-1][1], acc.dtype)",
    "acc = hp_apply(HP(0.1 * n + 0.05, k), acc)",
    "acc = hp_apply(G_HP, acc)",
]


@rule(0.6, max_depth=2)
def namedtuple_numbers(g):
    """(F252) A namedtuple of Python numbers on the heap (a global, a list's last item)
    replaced by some calls with other numbers (fed once they differ), read by attribute
    (`hp.gp`) and by index (`hp[0]`) in the same call and the later ones; or made in the
    call and handed to a jitted callee."""
    _helper(g, _HP)
    g.globals_declared.add("G_HP")
    change, read = g.choice(_HP_CHANGES), g.choice(_HP_READS)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", read],
        [read, f"if {g.pcond()}:", f"    {change}", g.choice(_HP_READS)],
        [read, g.choice(_HP_READS)],
    ])


_GRADS = '''\
GRL_SCALE = 0.3
GRL_CFG = types.SimpleNamespace(lam=0.5)


@tf.custom_gradient
def grl_scaled(t):
    def grad(dy):
        return -GRL_SCALE * dy
    return tf.identity(t), grad


@tf.custom_gradient
def grl_cfg(t):
    def grad(dy):
        return GRL_CFG.lam * dy
    return tf.identity(t), grad


def grl_factory(lam):
    @tf.custom_gradient
    def grl(t):
        def grad(dy):
            return -lam * dy
        return tf.identity(t), grad
    return grl


GRL_HALF = grl_factory(0.5)
GRL_LIST = [0.25]


@tf.custom_gradient
def grl_listed(t):
    def grad(dy):
        return GRL_LIST[-1] * dy
    return tf.identity(t), grad
'''

_GRAD_CHANGES = [
    "GRL_SCALE = 0.1 * (n % 3 + 1)",
    "GRL_CFG.lam = GRL_CFG.lam * 0.5 + 0.1",
    "GRL_LIST.append(0.1 * k)",
]


@rule(0.5, max_depth=2)
def custom_gradient_constants(g):
    """(F253) `@tf.custom_gradient` functions reading a module float, a namespace's float,
    a closure's float (guarded by value) or a list (refused), changed by some calls before
    or after the gradient is taken."""
    _helper(g, "import types\n")
    _helper(g, _GRADS)
    g.globals_declared.add("GRL_SCALE")
    t = g.fresh("tg")
    fn = g.choice(["grl_scaled", "grl_cfg", "GRL_HALF", "grl_listed"])
    use = [f"with tf.GradientTape() as {t}:", f"    {t}.watch(acc)",
           f"    gl = tf.reduce_sum({fn}(acc) * acc)",
           f"acc = acc + {t}.gradient(gl, acc) * 0.1"]
    change = [f"if {g.pcond()}:", f"    {g.choice(_GRAD_CHANGES)}"]
    return g.choice([change + use, use + change, use])


_HOOKS = '''\
import keras


class PureLoss(keras.losses.Loss):
    def __init__(self, gamma=2.0):
        super().__init__(name="pure_loss")
        self.gamma = gamma

    def call(self, y_true, y_pred):
        return tf.abs(y_true - y_pred) ** self.gamma


class VarMetric(keras.metrics.Metric):
    def __init__(self):
        super().__init__(name="var_metric")
        self.tot = self.add_weight(name="tot", initializer="zeros")
        self.scale = 1.0

    def update_state(self, y, p, sample_weight=None):
        self.tot.assign_add(tf.reduce_sum(tf.cast(y - p, "float32")) * self.scale)

    def result(self):
        return self.tot * 1.0


class CountingLoss(keras.losses.Loss):
    def __init__(self):
        super().__init__(name="counting_loss")
        self.calls = 0

    def call(self, y_true, y_pred):
        self.calls += 1
        return tf.square(y_true - y_pred)


PLOSS = PureLoss()
VMETRIC = VarMetric()
CLOSS = CountingLoss()
'''

_HOOK_CHANGES = ["PLOSS.gamma = 1.0 + (n % 2)", "VMETRIC.scale = 0.5 * k",
                 "VMETRIC.reset_state()"]


@rule(0.5, max_depth=2)
def keras_pure_hooks(g):
    """(F254) A Keras Loss whose `call` reads `self.gamma`, a Metric whose state is
    variables (and a `scale` setting), called in the step (inside a tape too), their
    settings changed by some calls; a Loss counting its calls (refused)."""
    _helper(g, _HOOKS)
    t = g.fresh("tl")
    obj = g.choice(["PLOSS", "VMETRIC", "CLOSS"])
    use = g.choice([
        [f"acc = acc + tf.cast({obj}(acc, acc * 0.5), acc.dtype) * 0.1"],
        [f"with tf.GradientTape() as {t}:", "    V0.assign_add(0.0)",
         f"    ls = {obj}(acc, acc * V0)",
         f"acc = acc + tf.cast(tf.reduce_sum({t}.gradient(ls, V0)), acc.dtype)"],
        [f"out.append({obj}.calls)" if obj == "CLOSS" else
         f"acc = acc * tf.cast({obj}(acc, acc), acc.dtype)"],
    ])
    change = [f"if {g.pcond()}:", f"    {g.choice(_HOOK_CHANGES)}"]
    return g.choice([change + use, use + change, use])
