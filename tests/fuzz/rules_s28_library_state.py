"""Generator rules (session 28, fixer f2) from session 28's probes: questions whose answer
differs between eager and graph execution (F223), library-wide settings read through a
getter (F224), library callables kept on the heap (F225), dict views (F226) and lists or
dicts Keras objects hold (F230). Each changed by a call (under a Python test, so some
calls change it and the next ones read it) and read by the same call or a later one.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_STATE = '''\
import functools
import operator
import os

import keras

keras.backend.set_epsilon(1e-7)  # (process-wide: as each program starts)
os.environ.pop("JANUS_FZ_FLAG", None)
FZ_ACT = functools.partial(tf.nn.leaky_relu, alpha=0.1)
FZ_PICKS = [operator.itemgetter(0), operator.itemgetter(1)]
FZ_W = {"a": 1.0}
FZ_VALS = FZ_W.values()
FZ_HUBER = keras.losses.Huber(delta=1.0)
FZ_SCHED = keras.optimizers.schedules.PiecewiseConstantDecay([5, 10], [1.0, 0.5, 0.1])
'''


@rule(WEIGHT, max_depth=2)
def eager_question(g):
    """(F223) `tf.executing_eagerly()`, `tf.inside_function()`, `type(t)`, `hasattr(t,
    "numpy")` inside the step: answered as the eager call sees them."""
    t = g.choice(["acc", "acc * 2.0", "tf.abs(acc)"])
    return [g.choice([
        "acc = acc * (2.0 if tf.executing_eagerly() else 3.0)",
        "acc = acc + (1.0 if tf.inside_function() else 0.5)",
        f"out.append(type({t}).__name__)",
        f"out.append(hasattr({t}, 'numpy'))",
        f"k = k + (1 if tf.is_symbolic_tensor({t}) else 2)",
    ])]


_SETTING_SETS = [
    "keras.backend.set_epsilon(1e-7 if flag else 0.25)",
    "keras.backend.set_epsilon(0.125 * (n % 3))",
    "os.environ['JANUS_FZ_FLAG'] = str(n % 3)",
    "os.environ.pop('JANUS_FZ_FLAG', None)",
]
_SETTING_USES = [
    "acc = acc + keras.backend.epsilon()",
    "acc = acc + float(os.environ.get('JANUS_FZ_FLAG', '0'))",
    "acc = acc * (2.0 if 'JANUS_FZ_FLAG' in os.environ else 1.0)",
    "acc = acc + tf.reduce_mean(keras.losses.binary_crossentropy(tf.ones_like(acc), "
    "tf.zeros_like(acc)))",
]


def _changed_and_read(g, sets: list, uses: list) -> list:
    change, use = g.choice(sets), g.choice(uses)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


@rule(WEIGHT, max_depth=2)
def global_setting(g):
    """(F224) Keras' epsilon (read by the step and by Keras' losses) and an environment
    variable, set by the call to a value of its arguments, then read by it. (Process-wide:
    the plain and janus sides of a case share them, so each call sets before it reads.)"""
    _helper(g, _STATE)
    return [g.choice(_SETTING_SETS), g.choice(_SETTING_USES)]


@rule(WEIGHT, max_depth=2)
def library_callable(g):
    """(F225) A partial of a library function and an itemgetter on the heap, changed in
    place (the partial's keywords, the list holding the itemgetter)."""
    _helper(g, _STATE)
    return _changed_and_read(g, [
        "FZ_ACT.keywords['alpha'] = 0.1 + 0.2 * (n % 3)",
        "FZ_PICKS[0] = FZ_PICKS[n % 2]",
    ], [
        "acc = FZ_ACT(acc - 1.0)",
        "acc = FZ_PICKS[0]([acc, acc * 2.0])",
    ])


@rule(WEIGHT, max_depth=2)
def dict_view(g):
    """(F226) A dict's values view kept on the heap, the dict changed by some calls."""
    _helper(g, _STATE)
    return _changed_and_read(g, [
        "FZ_W['a'] = float(n % 3)",
        "FZ_W['b'] = 0.5",
        "FZ_W.pop('b', None)",
    ], [
        "acc = acc + sum(FZ_VALS)",
        "acc = acc * len(FZ_VALS)",
    ])


@rule(WEIGHT, max_depth=2)
def keras_held_container(g):
    """(F230) A Huber loss's keyword dict and a schedule's values list changed in place,
    read by Keras' own code."""
    _helper(g, _STATE)
    return _changed_and_read(g, [
        "FZ_HUBER._fn_kwargs['delta'] = 0.5 + (n % 3)",
        "FZ_SCHED.values[0] = float(n % 3)",
    ], [
        "acc = acc + FZ_HUBER(acc, acc * 0.0)",
        "acc = acc * FZ_SCHED(2)",
    ])
