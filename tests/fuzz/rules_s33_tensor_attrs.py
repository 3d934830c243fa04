"""Generator rules (session 33, fixer g3): attributes of a tensor the step computes whose
graph answer differs from the eager one (F373: `.device` was '' in the graph; `.name`,
`.op`, `.graph` answered where eager raises AttributeError), read, compared, branched on
and queried with getattr/hasattr.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

WEIGHT = 0.4

_TENSORS = ["acc", "acc * 2.0", "tf.abs(acc)", "x", "tf.constant(1.0)",
            "tf.reduce_sum(acc)"]


@rule(WEIGHT, max_depth=2)
def tensor_attribute(g):
    """(F373) `t.device` (read, tested, under an in-step `tf.device`), `t.backing_device`,
    `hasattr(t, "name")`, `getattr(t, "op", None)`: answered as eagerly."""
    t = g.choice(_TENSORS)
    chosen = g.choice([
        f"out.append({t}.device)",
        f"acc = acc * (2.0 if 'GPU' in {t}.device else 1.5)",
        f"k = k + (1 if {t}.device == '' else 2)",
        f"out.append({t}.backing_device.endswith('CPU:0'))",
        f"out.append(getattr({t}, 'device', 'none'))",
        f"out.append(hasattr({t}, 'name'))",
        f"out.append({t}.__class__.__name__)",
        f"out.append(getattr({t}, 'op', None) is None)",
        f"k = k + (3 if hasattr({t}, 'graph') else 4)",
        ["with tf.device('/cpu:0'):", f"    y_dev = {t} + 1.0", "out.append(y_dev.device)"],
    ])
    return chosen if isinstance(chosen, list) else [chosen]
