"""Generator rules (session 29, f3): the program's code handed to TensorFlow, which runs it
past janus's hooks or converts it with AutoGraph.

- a lambda or nested def handed to `ds.map`/`tf.map_fn`, in calls janus runs with plain
  semantics (profiling, after a refusal): AutoGraph converts the user's function (a tensor
  `if` in it, errors reading "in user code:"; F248);
- a tensor conversion function of the program's (`tf.register_tensor_conversion_function`)
  reading fields of its object that calls change (F263);
- a `functools.partial` of a callable object of the program's as a `tf.cond` branch,
  the object's setting changed by calls (F264).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_DATA = '''\
HDS = tf.data.Dataset.from_tensor_slices(tf.range(4, dtype=tf.float32)).batch(2)
'''

_MAPPED = [
    ["acc = acc + tf.cast(HDS.map(lambda b: b * tf.cast(tf.reduce_mean(acc), tf.float32))"
     ".reduce(0.0, lambda a, b: a + tf.reduce_sum(b)), acc.dtype) * 0.01"],
    ["def _hmapped(b):",
     "    if tf.reduce_sum(b) > float(n % 4):",
     "        return b * 2.0",
     "    return b",
     "acc = acc + tf.cast(HDS.map(_hmapped).reduce(0.0, lambda a, b: a + tf.reduce_sum(b)), "
     "acc.dtype) * 0.01"],
    ["acc = tf.reshape(tf.map_fn(lambda b: b * {0: 1.5, 1: 0.5}[n % 3], tf.reshape(acc, [-1])),"
     " tf.shape(acc))"],
]


@rule(0.3, max_depth=1)
def autograph_handoffs(g):
    """(F248) A lambda or nested def of the function's handed to tf.data's `map` (a tensor
    `if` in it: AutoGraph's `tf.cond`) or `tf.map_fn` (a KeyError for some calls)."""
    _helper(g, _DATA)
    return list(g.choice(_MAPPED))


@rule(0.3, max_depth=1, eager=True)
def autograph_handoffs_refused(g):
    """(F248) The same after a line janus refuses (the call runs mixed): a mapped lambda
    whose error (acc's dtype: a float64 multiplies float32 data) must read as
    AutoGraph's."""
    _helper(g, _DATA)
    return ["k = k + int(float(tf.reduce_sum(acc)) > 0.0)"] + g.choice(_MAPPED + [
        ["acc = acc + tf.cast(HDS.map(lambda b: b * tf.reduce_mean(tf.cast(acc, tf.float64) "
         "if n % 3 == 2 else acc)).reduce(0.0, lambda a, b: a + tf.reduce_sum(b)), "
         "acc.dtype) * 0.01"]])


_CONVERTED = '''\
class HScaled:
    """Converted to a tensor by a function of the program's, reading its fields."""
    def __init__(self, v, k):
        self.v, self.k = v, k


H_GAIN = 1.0


def _hscaled_tensor(value, dtype=None, name=None, as_ref=False):
    return tf.constant(value.v * value.k * H_GAIN, dtype=dtype or tf.float32)


tf.register_tensor_conversion_function(HScaled, _hscaled_tensor)
HSP = HScaled(1.0, 2.0)
'''

_CONVERTED_SETS = ["HSP.v = float(n % 3)", "HSP.k = 0.5 + n % 2", "HSP = HScaled(2.0, 0.5)"]
_CONVERTED_USES = [
    "acc = acc + tf.cast(tf.convert_to_tensor(HSP), acc.dtype) * 0.1",
    "acc = acc * tf.cast(tf.add(tf.constant(1.0), HSP), acc.dtype) * 0.5",
    "acc = acc + tf.cast(tf.constant(0.5) * HSP, acc.dtype)",
]


@rule(0.4, max_depth=2)
def conversion_function_fields(g):
    """(F263) An object whose registered tensor conversion function reads its fields,
    which a call changes (under a test: the calls after read it)."""
    _helper(g, _CONVERTED)
    change, use = g.choice(_CONVERTED_SETS), g.choice(_CONVERTED_USES)
    if change.startswith("HSP ="):
        change = "HSP.v, HSP.k = 2.0, 0.5 + n % 2"
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


_BRANCH = '''\
class HBranch:
    """A callable object of the program's, its scale a setting calls change."""
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, t):
        return t * self.scale


HB = HBranch(0.5)
'''


@rule(0.4, max_depth=2)
def partial_callable_branch(g):
    """(F264) `functools.partial(HB, acc)` as a tf.cond branch (or tf.map_fn's function),
    HB's scale changed by some calls."""
    _helper(g, _BRANCH)
    change = g.choice(["HB.scale = 0.25 * (n % 3)", "HB.scale = HB.scale + 0.5"])
    use = g.choice([
        "acc = tf.cond(tf.reduce_sum(acc) > 0, functools.partial(HB, acc), lambda: acc - 0.5)",
        "acc = tf.reshape(tf.map_fn(functools.partial(HB), tf.reshape(acc, [-1])), "
        "tf.shape(acc))",
    ])
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
    ])
