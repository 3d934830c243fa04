"""Generator rules (session 35) for TensorFlow's own settings read through tf.config's
getters (F400): TensorFloat-32 and soft device placement set by
some calls (where they are not the call's value already) and read by the program's
getters, in a Python test or as a value; set back by the same call, or left set (set
back as each program starts: they do not leak into the worker's next programs). A call
sets before it reads: the plain and janus sides of a case share the settings.
(Not synchronous execution: an op failing asynchronously poisons every later op.)

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_CONFIG = '''\
TC_TF32 = (tf.config.experimental.tensor_float_32_execution_enabled,
           tf.config.experimental.enable_tensor_float_32_execution)
TC_SOFT = (tf.config.get_soft_device_placement, tf.config.set_soft_device_placement)
for _get, _set in (TC_TF32, TC_SOFT):  # (process-wide: as each program starts)
    _set(True)


def tc_set(setting, value):
    """Set a TensorFlow setting (getter, setter) where it is not `value` already."""
    if setting[0]() != value:
        setting[1](value)
'''

_SETTINGS = ["TC_TF32", "TC_SOFT"]
_VALUES = ["flag", "not flag", "n % 2 == 0", "n > 2", "len(xs) > 1", "True"]
_USES = [
    "acc = acc * (2.0 if {s}[0]() else 1.0)",
    "acc = acc + (0.5 if not {s}[0]() else 0.0)",
    "out.append({s}[0]())",
    "acc = acc + tf.cast(int({s}[0]()), acc.dtype)",
    "acc = acc + (1.0 if tf.config.get_soft_device_placement() and {s}[0]() else 0.0)",
]


@rule(WEIGHT, max_depth=2)
def tf_config_settings(g):
    """(F400) A tf.config setting set by the call where it is not the call's value
    already (or only under a Python test), then read by the program's getter; set back to
    True by the same call, or left set (a call not setting it reads what the call before
    it left, on both sides)."""
    _helper(g, _CONFIG)
    setting = g.choice(_SETTINGS)
    use = g.choice(_USES).format(s=setting)
    set_it = f"tc_set({setting}, {g.choice(_VALUES)})"
    cond = [f"if {g.pcond()}:", f"    {set_it}"]
    return g.choice([  # (mostly set by some calls and read by the others)
        [set_it, use, f"tc_set({setting}, True)"],
        [set_it, use],
        cond + [use], cond + [use], cond + [use],
        cond,
        [use],
    ])
