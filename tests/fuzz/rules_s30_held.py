"""Generator rules (session 30, fixer f2) for numbers the program's code Keras runs
unconverted reads, changing on every call: an activation's `x * HsCfg.alpha` (fed),
`tf.nn.leaky_relu(x, alpha=HsCfg.beta)` or `math.cos(HS_NS.t)` (refused after a few
values): F295; an activation rebound to an equal new `functools.partial` (or another, or
its keywords changed): F296; a schedule's private numbers (`self._peak`), changed
between calls or not: F297. The function itself changes them after the read (the next
call reads the new value).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_HELD = '''\
import functools
import math
import types

import keras


class HsCfg:
    alpha = 0.5
    beta = 0.2


HS_NS = types.SimpleNamespace(t=0.3, scale=1.0)


def hs_fed_act(x):
    return tf.nn.relu(x) - x * HsCfg.alpha + HS_NS.scale


def hs_leaky_act(x):
    return tf.nn.leaky_relu(x, alpha=HsCfg.beta)


def hs_cos_act(x):
    return x * math.cos(HS_NS.t)


def hs_dense(activation):
    layer = keras.layers.Dense(1, activation=activation, kernel_initializer="ones",
                               use_bias=False)
    layer.build((None, 1))
    return layer


HS_LAYERS = [hs_dense(hs_fed_act), hs_dense(hs_leaky_act), hs_dense(hs_cos_act),
             hs_dense(functools.partial(tf.nn.leaky_relu, alpha=0.2))]


def hs_layer(i, a):
    v = tf.reshape(tf.reduce_mean(tf.cast(a, tf.float32)), [1, 1])
    return tf.reduce_sum(HS_LAYERS[i](v))


class HsWarm(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup):
        self._peak = peak
        self._warmup_steps = warmup
        self._calls_seen = 0

    def __call__(self, step):
        s = tf.cast(step, tf.float32) + 1.0
        return self._peak * tf.minimum(s / self._warmup_steps, 1.0)


HS_SCHED = HsWarm(0.1, 3.0)
HS_VAR = tf.Variable([1.0, 2.0])
HS_OPT = keras.optimizers.SGD(HS_SCHED)
HS_OPT.build([HS_VAR])


def hs_step():
    HS_OPT.apply_gradients([(tf.constant([0.1, -0.1]), HS_VAR)])
    return tf.reduce_sum(HS_VAR)
'''

_LAYER_CHANGES = [
    ["HsCfg.alpha = HsCfg.alpha * 0.9 + 0.01", "HS_NS.scale = 1.0 + n * 0.25",
     "HsCfg.alpha = 0.5 if flag else 0.25"],
    ["HsCfg.beta = HsCfg.beta * 0.8 + 0.01", "HsCfg.beta = 0.1 if flag else 0.2"],
    ["HS_NS.t = HS_NS.t + 0.1"],
    ["HS_LAYERS[3].activation = functools.partial(tf.nn.leaky_relu, alpha=0.2)",
     "HS_LAYERS[3].activation = functools.partial(tf.nn.leaky_relu, alpha=0.3 if flag "
     "else 0.2)", 'HS_LAYERS[3].activation.keywords["alpha"] = 0.05 * (n % 4)'],
]
_STEP_CHANGES = ["HS_SCHED._peak = HS_SCHED._peak * 0.5 + 0.01",
                 "HS_SCHED._warmup_steps = 2.0 if flag else 3.0",
                 "HS_SCHED._calls_seen = HS_SCHED._calls_seen + 1", None]


def _after(g, change: str | None, use: str) -> list:
    """`use`, then (on some calls) `change`: the next call reads what changed."""
    if change is None:
        return [use]
    return g.choice([[use, f"if {g.pcond()}:", f"    {change}"], [use, change]])


@rule(WEIGHT, max_depth=1)
def keras_held_numbers(g):
    """(F295, F296) An activation Keras calls reading a number the function changes on
    (almost) every call, fed or not feedable; a partial activation rebound (equal or
    not) or changed in place."""
    _helper(g, _HELD)
    layer = g.rng.randrange(len(_LAYER_CHANGES))
    change = g.choice(_LAYER_CHANGES[layer])
    return _after(g, change, f"acc = acc + tf.cast(hs_layer({layer}, acc), acc.dtype) * 0.1")


@rule(WEIGHT, max_depth=1)
def keras_private_schedules(g):
    """(F297) An optimizer step under a schedule of private numbers, changed by the
    function, or a private counter its `__call__` does not read."""
    _helper(g, _HELD)
    change = g.choice(_STEP_CHANGES)
    return _after(g, change, "acc = acc + tf.cast(hs_step(), acc.dtype) * 0.1")
