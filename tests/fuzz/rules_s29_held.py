"""Generator rules (session 29, fixer f5) for the program's code Keras runs unconverted
while janus traces (graphgen/held_code.py) reading state in ways F245's check missed:
a class attribute (`HhCfg.alpha`), a closure read only in a comprehension, a mutable
default, `os.environ`, output by another name (`builtins.print`): F280; what Keras holds
beyond numbers and functions: a Lambda's `arguments`, a partial activation, a schedule
holding another schedule: F281; a schedule counting its calls with `setattr`, one with a
public list of milestones: F282. Some calls change the state, they and later calls read it.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_HELD = '''\
import builtins
import functools
import os
import types

import keras

def hh_act_key():
    return "HH_ACT_" + __name__  # (one per side: plain and janus share the process)


os.environ[hh_act_key()] = "tanh"  # (process-wide: as each program starts)


class HhCfg:
    alpha = 0.5


HH_NS = types.SimpleNamespace(temp=1.0)
HH_DEF = {"a": 0.5}


def hh_class_act(x):
    return tf.tanh(x * HhCfg.alpha)


def hh_default_act(x, cfg=HH_DEF):
    return tf.tanh(x * cfg["a"])


def hh_environ_act(x):
    return tf.tanh(x) if os.environ.get(hh_act_key()) == "tanh" else tf.nn.relu(x) - 0.5


def hh_print_act(x):
    builtins.print("hh act")
    return tf.tanh(x)


def hh_nested(ns):
    return keras.layers.Lambda(lambda h: tf.add_n([h / ns.temp for _ in range(2)]))


def hh_scale(x, k):
    return x * k


def hh_dense(activation):
    layer = keras.layers.Dense(1, activation=activation, kernel_initializer="ones",
                               use_bias=False)
    layer.build((None, 1))
    return layer


HH_LAYERS = [hh_dense(hh_class_act), hh_dense(hh_default_act), hh_dense(hh_environ_act),
             hh_dense(hh_print_act), hh_nested(HH_NS),
             keras.layers.Lambda(hh_scale, arguments={"k": 2.0}),
             hh_dense(functools.partial(tf.nn.leaky_relu, alpha=0.1))]


class HhWarm(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, after):
        self.after = after

    def __call__(self, step):
        s = tf.cast(step, tf.float32)
        return tf.cond(s < 1.0, lambda: 0.01 + 0.0 * s, lambda: self.after(step))


class HhCount(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self):
        self.calls = 0

    def __call__(self, step):
        setattr(self, "calls", self.calls + 1)
        return 0.01 + 0.0 * tf.cast(step, tf.float32)


class HhMulti(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, milestones):
        self.milestones = milestones

    def __call__(self, step):
        s = tf.cast(step, tf.float32)
        return 0.1 * tf.pow(0.5, tf.add_n([tf.cast(s >= m, tf.float32)
                                           for m in self.milestones]))


HH_SCHEDS = [HhWarm(keras.optimizers.schedules.ExponentialDecay(0.1, 4, 0.5)), HhCount(),
             HhMulti([2, 5])]
HH_VARS = [tf.Variable([1.0, 2.0]) for _ in HH_SCHEDS]
HH_OPTS = [keras.optimizers.SGD(s) for s in HH_SCHEDS]
for _opt, _var in zip(HH_OPTS, HH_VARS):
    _opt.build([_var])


def hh_layer(i, a):
    v = tf.reshape(tf.reduce_mean(tf.cast(a, tf.float32)), [1, 1])
    return tf.reduce_sum(HH_LAYERS[i](v))


def hh_step(i):
    HH_OPTS[i].apply_gradients([(tf.constant([0.1, -0.1]), HH_VARS[i])])
    return tf.reduce_sum(HH_VARS[i]) + 0.001 * getattr(HH_SCHEDS[i], "calls", 0)
'''

_LAYER_SETS = [
    ["HhCfg.alpha = 0.5 + n % 3", 'HH_DEF["a"] = 2.0 if flag else 0.5'],
    ['os.environ[hh_act_key()] = "relu" if flag else "tanh"'],
    [],
    ["HH_NS.temp = 1.0 + n % 2"],
    ['HH_LAYERS[5].arguments["k"] = 1.0 + n % 3',
     'HH_LAYERS[5].arguments = {"k": 3.0 if flag else 2.0}'],
    ["HH_LAYERS[6].activation = functools.partial(tf.nn.leaky_relu, alpha=0.3 if flag "
     "else 0.1)", 'HH_LAYERS[6].activation.keywords["alpha"] = 0.05 * (n % 4)'],
]
_LAYER_OF_SET = [0, 2, 3, 4, 5, 6]  # (the layer each group of sets changes: 0 and 1 by
# the first group)
_STEP_SETS = [
    ["HH_SCHEDS[0].after.initial_learning_rate = 0.2 if flag else 0.1",
     "HH_SCHEDS[0].after = keras.optimizers.schedules.ExponentialDecay(0.05 * (n % 3 + 1), "
     "4, 0.5)"],
    [],
    ["HH_SCHEDS[2].milestones[0] = n % 4"],
]


def _changed(g, change: str | None, use: str) -> list:
    if change is None:
        return [use]
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


@rule(WEIGHT, max_depth=1)
def keras_held_reads(g):
    """(F280, F281) An activation or Lambda Keras calls reading a class attribute, a
    default, os.environ, a closure in nested code, its `arguments`, or a partial; some
    calls change it; one prints through `builtins.print`."""
    _helper(g, _HELD)
    group = g.rng.randrange(len(_LAYER_SETS))
    layer = _LAYER_OF_SET[group] if group else g.rng.randrange(2)
    sets = _LAYER_SETS[group]
    change = g.choice(sets) if sets else None
    return _changed(g, change, f"acc = acc + tf.cast(hh_layer({layer}, acc), acc.dtype) * 0.1")


@rule(WEIGHT, max_depth=1)
def keras_held_schedules(g):
    """(F281, F282) A schedule of the program's holding a Keras schedule (swapped, or its
    number changed), counting its calls with `setattr`, or holding a public list."""
    _helper(g, _HELD)
    i = g.rng.randrange(len(_STEP_SETS))
    sets = _STEP_SETS[i]
    change = g.choice(sets) if sets else None
    return _changed(g, change, f"acc = acc + tf.cast(hh_step({i}), acc.dtype) * 0.1")
