"""Generator rules (session 30) from probe round h1's optimizer probes: an optimizer of
the program's class (its `update_step` reading `self.scale`, an `apply_gradients` override
counting its calls and scaling the gradients by `self.factor`, a class constant read in
`update_step`) stepping in a call that runs mixed (a `.numpy()` read), its Python
attributes changed by a call under a test (F310). Janus must run the update with the
values of this call, and the override's Python on every call.
Keras variables are not in the heap snapshot: each step adds their sum to `acc`.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_OPTIMIZERS = '''\
import keras

OW = tf.Variable([0.5, -0.5, 0.25])


class OScaled(keras.optimizers.Optimizer):
    """SGD whose step is scaled by a Python attribute."""
    def __init__(self, learning_rate=0.05):
        super().__init__(learning_rate=learning_rate, name="o_scaled")
        self.scale = 1.0

    def update_step(self, grad, var, lr):
        self.assign_sub(var, tf.cast(lr, var.dtype) * self.scale * grad)


class OCounting(keras.optimizers.SGD):
    """SGD counting its updates, its gradients scaled by a Python attribute."""
    def __init__(self):
        super().__init__(0.05, name="o_counting")
        self.applied = 0
        self.factor = 1.0

    def apply_gradients(self, grads_and_vars):
        self.applied += 1
        return super().apply_gradients([(g * self.factor, v) for g, v in grads_and_vars])


class OConst(keras.optimizers.SGD):
    """SGD scaled by a class constant."""
    SCALE = 1.0

    def update_step(self, grad, var, lr):
        self.assign_sub(var, tf.cast(lr, var.dtype) * type(self).SCALE * grad)


class OPreset(keras.optimizers.Adam):
    """Adam with the program's defaults: only its construction is the program's."""
    def __init__(self):
        super().__init__(learning_rate=0.01, name="o_preset")


OPT = tf.Module()  # (held by a library object: the heap snapshot would compare their
OPT.scaled, OPT.counting, OPT.const, OPT.preset = \
    OScaled(), OCounting(), OConst(0.05, name="o_const"), OPreset()  # per-side ids)
OPT.scaled.build([OW]), OPT.counting.build([OW]), OPT.const.build([OW]), \
    OPT.preset.build([OW])


def ovec(a):
    """Three float32 numbers summarizing a tensor of any shape and dtype."""
    a = tf.cast(a, tf.float32)
    return tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a) * 0.5])


def ostep(opt, a):
    """One update of OW by `opt`; OW's sum after it."""
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(OW * tf.tanh(ovec(a)))
    opt.apply_gradients([(tape.gradient(loss, OW), OW)])
    return tf.reduce_sum(OW)
'''

_SETS = {
    "OPT.scaled": ["OPT.scaled.scale = 0.5 * (n % 3 + 1)", "OPT.scaled.scale = 2.0 if flag else 0.25"],
    "OPT.counting": ["OPT.counting.factor = 0.5 * (n % 3 + 1)", "OPT.counting.factor = -1.0"],
    "OPT.const": ["OConst.SCALE = 0.5 * (n % 3 + 1)"],
    "OPT.preset": ["OPT.preset.learning_rate = 0.01 * (n % 3 + 1)"],
}


@rule(0.3, max_depth=1, eager=True)
def program_optimizer_mixed_update(g):
    """(F310) An optimizer of the program's class stepping in a call that runs mixed,
    its Python attribute set before the step, under a test, or not at all; how many
    updates an overriding `apply_gradients` counted joins `acc`."""
    _helper(g, _OPTIMIZERS)
    opt = g.choice(sorted(_SETS))
    write = g.choice(_SETS[opt])
    first = g.choice([[write], [f"if {g.pcond()}:", f"    {write}"], ["pass"]])
    return first + [
        f"s.hist.append(round(float(ostep({opt}, acc).numpy()), 4))",
        "acc = acc + tf.cast(tf.reduce_sum(OW) + 0.01 * OPT.counting.applied, acc.dtype) * 0.1"]


@rule(0.3, max_depth=2)
def program_optimizer_update(g):
    """(F310) An optimizer of the program's class stepping in a call janus may trace
    (refused past its hooks: the call splits), its attribute set by a call under a test."""
    _helper(g, _OPTIMIZERS)
    opt = g.choice(sorted(_SETS))
    write = g.choice(_SETS[opt])
    use = f"acc = acc + tf.cast(ostep({opt}, acc) + 0.01 * OPT.counting.applied, acc.dtype) * 0.1"
    return g.choice([
        [use, f"if {g.pcond()}:", f"    {write}"],
        [f"if {g.pcond()}:", f"    {write}", use],
        [use],
    ])
