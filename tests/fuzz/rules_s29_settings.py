"""Generator rules (session 29, fixer f2) for the per-call checks of what no epoch counts
(graphgen/keras_contents.py): Keras' configuration (floatx, epsilon, image data format)
set to another value or to an equal value in a new object, read by Keras' own code and by
the program's getters (F224's readers, one text now: F258); the lists and dicts Keras
objects hold, their items replaced by equal objects, by other values or by values of
another type (F230's check, by identity first: F258); and the program's code Keras or
TensorFlow runs unconverted, with nested functions and comprehensions (one bytecode
reader for graphgen/held_code.py and graphgen/unconverted_reads.py: F259).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_CONFIG = '''\
import keras

keras.backend.set_epsilon(1e-7)  # (process-wide: as each program starts)
keras.config.set_floatx("float32")
keras.config.set_image_data_format("channels_last")


def cf_set(getter, setter, value, renew=False):
    """Set a Keras setting where it is not `value` already (`renew`: to an equal value
    in a new object where it is)."""
    if getter() != value or renew:
        setter(value * 1.0 if isinstance(value, float) else "".join(value))


def cf_bce(a):
    """Keras' binary cross-entropy of a constant prediction: reads `epsilon()`."""
    return tf.reduce_mean(keras.losses.binary_crossentropy(tf.ones_like(a), tf.zeros_like(a)))
'''

_CONFIG_SETS = [  # (getter, setter, the value set, its default)
    ("keras.backend.epsilon", "keras.backend.set_epsilon", "1e-7 if flag else 0.25", "1e-7"),
    ("keras.config.epsilon", "keras.config.set_epsilon", "0.125 * (n % 3) + 1e-7", "1e-7"),
    ("keras.config.floatx", "keras.config.set_floatx", "'float64' if flag else 'float32'",
     "'float32'"),
    ("keras.backend.image_data_format", "keras.backend.set_image_data_format",
     "'channels_' + ('first' if flag else 'last')", "'channels_last'"),
    ("keras.backend.epsilon", "keras.backend.set_epsilon", "1e-7, renew=n % 4 == 0", "1e-7"),
    ("keras.config.floatx", "keras.config.set_floatx", "'float32', renew=n % 3 == 0",
     "'float32'"),
]
_CONFIG_USES = [
    "acc = acc + tf.cast(cf_bce(acc), acc.dtype)",
    "acc = acc + keras.backend.epsilon()",
    "out.append(str(keras.ops.zeros(()).dtype))",
    "acc = acc * (2.0 if keras.config.floatx() == 'float64' else 1.0)",
    "acc = acc * (3.0 if keras.backend.image_data_format() == 'channels_first' else 1.0)",
]


@rule(WEIGHT, max_depth=2)
def keras_config_set(g):
    """(F258) Keras' epsilon, floatx, image data format set by the call where it is not
    the call's value already (or to an equal value in a new object), then read by Keras'
    code or the program's getters, and set back. (Process-wide: the plain and janus sides
    of a case share them, so each call sets before it reads; a call finding its value set
    already runs as a graph; set back, they do not leak into the worker's next programs.)"""
    _helper(g, _CONFIG)
    getter, setter, value, default = g.choice(_CONFIG_SETS)
    return [f"cf_set({getter}, {setter}, {value})", g.choice(_CONFIG_USES),
            f"cf_set({getter}, {setter}, {default})"]


_HELD = '''\
import keras

HI_HUBER = keras.losses.Huber(delta=1.0)
HI_SCHED = keras.optimizers.schedules.PiecewiseConstantDecay([4, 8, 12], [1.0, 0.5, 0.25, 0.1])
HI_SCALE = keras.layers.Rescaling(scale=[1.0, 2.0])
'''

_HELD_SETS = [
    "HI_HUBER._fn_kwargs['delta'] = float(1 + 0 * n)",
    "HI_HUBER._fn_kwargs['delta'] = 1.0 if flag else 0.5",
    "HI_HUBER._fn_kwargs['delta'] = 1 if flag else 1.0",
    "HI_SCHED.values[1] = 0.5 * (1.0 + 0.0 * n)",
    "HI_SCHED.values[1] = 0.25 * (n % 3)",
    "HI_SCHED.values[:] = [1.0, 0.5 + n % 2, 0.25, 0.1]",
    "HI_SCHED.boundaries[0] = 4 + n % 2",
    "HI_SCALE.scale[1] = 2.0 * (1.0 + 0.0 * n) if flag else 3.0",
]
_HELD_USES = [
    "acc = acc + tf.cast(HI_HUBER(acc, acc * 0.0), acc.dtype)",
    "acc = acc * tf.cast(HI_SCHED(5), acc.dtype)",
    "acc = acc + tf.cast(HI_SCHED(9), acc.dtype)",
    "acc = acc + tf.cast(tf.reduce_sum(HI_SCALE(tf.ones((1, 2)))), acc.dtype)",
]


def _changed(g, change: str, use: str) -> list:
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [change, use],
        [use],
    ])


@rule(WEIGHT, max_depth=2)
def keras_held_items(g):
    """(F258) A Huber loss's keyword dict, a schedule's lists, a Rescaling's scale list:
    items replaced in place by some calls (an equal number in a new object, another
    value, an int for a float), read by Keras' own code."""
    _helper(g, _HELD)
    return _changed(g, g.choice(_HELD_SETS), g.choice(_HELD_USES))


_CODE = '''\
import types

import keras

NC = {"t": 1.0}
NC_SCALE = 0.5
NC_CFG = types.SimpleNamespace(lam=0.25)


def nc_act(x):
    return tf.add_n([tf.tanh(x / w) for w in (1.0, 2.0)])


def nc_act_global(x):
    return tf.add_n([tf.tanh(x / NC["t"]) for _ in range(2)])


class NcReg(keras.regularizers.Regularizer):
    def __call__(self, w):
        return tf.add_n([tf.reduce_sum(tf.abs(w)) * c for c in (0.01, 0.02)])


NC_DENSE = keras.layers.Dense(1, activation=nc_act, kernel_initializer="ones",
                              use_bias=False, activity_regularizer=NcReg())
NC_DENSE.build((None, 1))
NC_GLOBAL = keras.layers.Dense(1, activation=nc_act_global, kernel_initializer="ones",
                               use_bias=False)
NC_GLOBAL.build((None, 1))


@tf.custom_gradient
def nc_grad_nested(t):
    def grad(dy):
        scale = lambda v: v * NC_SCALE
        return scale(dy) + NC_CFG.lam * dy
    return tf.identity(t), grad


@tf.custom_gradient
def nc_grad_counting(t):
    def grad(dy):
        def bump():
            NC["t"] = NC["t"]
            return dy
        return -bump()
    return tf.identity(t), grad


def nc_dense(layer, a):
    v = tf.reshape(tf.reduce_mean(tf.cast(a, tf.float32)), [1, 1])
    return tf.reduce_sum(layer(v)) + 0.1 * tf.add_n(layer.losses + [tf.constant(0.0)])
'''

_CODE_SETS = ['NC["t"] = 1.0 + n % 3', "NC_SCALE = 0.25 * (n % 3 + 1)",
              "NC_CFG.lam = 0.5 if flag else 0.25"]


@rule(0.3, max_depth=2)
def unconverted_nested_code(g):
    """(F259) The program's code run unconverted with nested functions, lambdas and
    comprehensions: an activation (pure, or reading a global), an activity regularizer,
    a custom gradient reading a global and a namespace through a nested lambda or writing
    an item in a nested function; the globals changed by some calls."""
    _helper(g, _CODE)
    g.globals_declared.add("NC_SCALE")
    t = g.fresh("tn")
    use = g.choice([
        ["acc = acc + tf.cast(nc_dense(NC_DENSE, acc), acc.dtype) * 0.1"],
        ["acc = acc + tf.cast(nc_dense(NC_GLOBAL, acc), acc.dtype) * 0.1"],
        [f"with tf.GradientTape() as {t}:", f"    {t}.watch(acc)",
         f"    gl = tf.reduce_sum({g.choice(['nc_grad_nested', 'nc_grad_counting'])}(acc) * acc)",
         f"acc = acc + {t}.gradient(gl, acc) * 0.1"],
    ])
    change = [f"if {g.pcond()}:", f"    {g.choice(_CODE_SETS)}"]
    return g.choice([change + use, use + change, use])
