"""Generator rules (session 28, after v73) from session 28's probes of values at the edges:
`max`/`min` of fed numbers with an inf or a nan and of fed bools (F237), variable updates
whose value only broadcasts to the variable's shape (F238), configs whose `__getattr__`
raises other than AttributeError (an AttrDict: F239), `b is True` of a fed bool (F240).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_EXTREMES = [
    "s.total = min(s.total, float(k) * 0.5 + 0.25)",
    "acc = acc + max(-math.inf, float(n) * 0.5, float(k) / 2)",
    "acc = acc * min(float(n) + 0.5, math.inf, 3.0)",
    "out.append(max([float(k) * 0.5, float(n), NEG_INF]))",
    "out.append(max(float(n) * 0.5, float('nan')))",
    "out.append(min(float('nan'), float(k) + 0.5))",
    "out.append(min(float(k), float('nan'), 0.5))",
    "out.append(max(n > 1, k > 2, flag))",
    "out.append(min([n > 0, True, k > 1]))",
    "acc = acc * float(max(n > 1, k > 0))",
]


@rule(0.6, max_depth=2)
def extremes_past_the_ints(g):
    """(F237) `max`/`min` of fed numbers with an inf or a nan item (a best-loss tracker
    reset to inf, a logsumexp from -inf), and of fed bools."""
    _helper(g, "NEG_INF = -math.inf\n")
    use = g.choice(_EXTREMES)
    if use.startswith("s.total") and g.chance(0.5):
        return [f"if {g.pcond()}:", "    s.total = math.inf", use]
    return [use]


_VARIABLE = "VW = tf.Variable([1.0, -2.0, 3.0])\n"
_UPDATES = [
    "VW.assign_add(tf.cast(tf.reshape(acc, [-1])[:{m}], tf.float32) * 0.1)",
    "VW.assign_sub(0.1)",
    "VW.assign_sub(tf.fill([{m}], 0.1))",
    "VW.assign(tf.fill([{m}], tf.cast(tf.reduce_mean(acc), tf.float32)))",
    "VW.assign(tf.reshape(tf.fill([{m}], 0.5), [{m}, 1]))",
    "VW.scatter_update(tf.IndexedSlices(tf.cast(tf.reduce_sum(acc), tf.float32), [n % 3]))",
    "VW.scatter_nd_update([[0], [n % 3]], tf.cast(tf.reshape(acc, [-1])[:{m}], tf.float32))",
    "VW[0:2].assign(tf.cast(tf.reduce_mean(acc), tf.float32))",
    "VW[0:2].assign(tf.fill([{m}], 0.25))",
]


@rule(0.6, max_depth=2)
def variable_update_shapes(g):
    """(F238) A variable update whose value has the variable's shape on some calls and
    only broadcasts to it (or not even that) on others: eager's op raises there, a sliced
    assignment or a scalar `scatter_update` broadcasts."""
    _helper(g, _VARIABLE)
    update = g.choice(_UPDATES).format(m=g.choice(["3", "1", "2", "3 if flag else 1"]))
    use = "acc = acc + tf.cast(tf.reduce_sum(VW), acc.dtype) * 0.01"
    if g.chance(0.6):
        return [f"if {g.pcond()}:", f"    {update}", use]
    return [update, use]


_CONFIGS = '''\
class AttrDict(dict):
    """The "AttrDict" config recipe: a missing key raises KeyError, not AttributeError."""
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


class StrictConfig:
    def __init__(self, **values):
        self.__dict__.update(values)

    def __getattr__(self, name):
        raise RuntimeError(f"no config key {name}")


CFG_A = AttrDict(lr=0.5, steps=0)
CFG_S = StrictConfig(lr=0.25, steps=0)
'''


@rule(0.6, max_depth=2)
def attribute_configs(g):
    """(F239) Configs whose `__getattr__` raises KeyError or an error of their own for a
    name they lack, read and written by the step (janus's own attribute probes of them
    were internal errors)."""
    _helper(g, _CONFIGS)
    cfg = g.choice(["CFG_A", "CFG_S"])
    return g.choice([
        [f"acc = acc * {cfg}.lr"],
        [f"{cfg}.steps += 1", f"acc = acc + float({cfg}.steps) * 0.01"],
        [f"if {g.pcond()}:", f"    {cfg}.lr = {cfg}.lr * 0.5", f"acc = acc * {cfg}.lr"],
        [f"out.append({cfg}.steps)"],
        [f"if {g.pcond()}:", f"    out.append(getattr({cfg}, 'missing', 1.0))"],
    ])


_IDENTITY_TESTS = [
    "acc = acc * 2.0 if (n > 1) is True else acc",
    "acc = acc + 1.0 if (k > 2) is not False else acc",
    "out.append((float(n) > 0.5) is True)",
    "out.append(flag is True)",
    "out.append(max(float(n), 0.5) is float(n))",
]


@rule(0.4, max_depth=2)
def identity_of_fed_bools(g):
    """(F240) `b is True` / `b is not False` of a bool computed from fed numbers (a
    singleton compared by its value), `is` between numbers (which object Python hands on)."""
    return [g.choice(_IDENTITY_TESTS)]
