"""Generator rules (session 27, after v73) from session 27's library-state probes: Keras preprocessing state
changed through its API (`Normalization.adapt`, `StringLookup.set_vocabulary`,
`Discretization.adapt`: F205) and variables added to, replaced in or dropped from a
tf.Module whose `trainable_variables`/`variables` a step reads (F206). The change is made
by a call (under a Python test, so some calls change it and the next ones read it) and
read by the same call or a later one; janus runs the changing line plainly (a library
call it cannot trace, a variable made), the graphs of the other calls must see it.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_PREP = '''\
import keras
import numpy as np

KNORM = keras.layers.Normalization(axis=None)
KNORM.adapt(np.array([0.0, 2.0]))
KLOOK = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
KBINS = keras.layers.Discretization(num_bins=3)
KBINS.adapt(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0]))


def kprep(a):
    """A tensor's mean normalized and binned, and two tokens looked up: one number."""
    v = tf.reshape(tf.reduce_mean(tf.cast(a, tf.float32)), [1])
    ids = KLOOK(tf.constant(["a", "c"]))
    binned = KBINS(v)
    return tf.reduce_sum(KNORM(v)) + 0.1 * tf.cast(tf.reduce_sum(ids), tf.float32) + \
        0.1 * tf.cast(tf.reduce_sum(binned), tf.float32)
'''

_PREP_SETS = [
    "KNORM.adapt(np.array([float(n % 3), 4.0 + n % 2]))",
    "KLOOK.set_vocabulary(['c', 'b', 'a'] if flag else ['a', 'b', 'c', 'd'][: 2 + n % 3])",
    "KBINS.adapt(np.array([0.0, 1.0 + n % 3, 7.0]))",
]
_PREP_USES = [
    "acc = acc + tf.cast(kprep(acc), acc.dtype) * 0.1",
    "acc = acc + tf.cast(float(KLOOK.vocabulary_size()), acc.dtype) * 0.01",
]

_MODULE = '''\
class TMod(tf.Module):
    """A module whose variables a step sums: a variable, a list and a dict of them."""
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(0.5)
        self.ws = [tf.Variable(0.25)]
        self.d = {"a": tf.Variable(-0.5)}


TMOD = TMod()
TPOOL = [tf.Variable(1.5), tf.Variable(-2.0), tf.Variable(3.0, trainable=False)]


def tsum():
    """The module's trainable variables summed, plus how many variables it has."""
    return tf.add_n(TMOD.trainable_variables) + 0.01 * len(TMOD.variables)
'''

_MODULE_SETS = [  # (no variable made in the call: janus would run it all eagerly)
    "TMOD.extra = TPOOL[n % 3]",
    "TMOD.w = TPOOL[n % 2]",
    "TMOD.ws.append(TPOOL[k % 3])",
    "TMOD.d['k'] = TPOOL[n % 3]",
    "TMOD.d.pop('k', None)",
    "TMOD.more = [TPOOL[0], TPOOL[n % 3]]",
]


@rule(0.5, max_depth=2)
def keras_preprocessing_state(g):
    """(F205) A Keras preprocessing layer re-fit or given a new vocabulary by a call
    (under a test: some calls), read by it and by the calls after."""
    _helper(g, _PREP)
    change, use = g.choice(_PREP_SETS), g.choice(_PREP_USES)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


@rule(0.5, max_depth=2)
def module_variables_grown(g):
    """(F206) A variable added to, replaced in or dropped from a tf.Module by a call
    (under a test), its `trainable_variables` summed by it and the calls after."""
    _helper(g, _MODULE)
    change = g.choice(_MODULE_SETS)
    use = "acc = acc + tf.cast(tsum(), acc.dtype) * 0.1"
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])
