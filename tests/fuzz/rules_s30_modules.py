"""Generator rules (session 30) from session 29's probes of module and config state:

- a tf.Module's variables changed past `AutoTrackable.__setattr__` (`object.__setattr__`,
  `vars(m).update`, `m.__dict__[...]`, `del m.__dict__[...]`, a plain list put there and
  appended to), by a call under a Python test, its `trainable_variables`/`variables` read
  by the same call or the calls after (F265: graphgen/module_dicts.py);
- a config dataclass handed to `str.format` (field paths), `format_map`,
  `dataclasses.asdict`/`astuple`, changed by a call or not (F266, F290:
  graphgen/plain_records.py, graphgen/past_hooks.py).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_MODULE = '''\
class DMod(tf.Module):
    """A module whose variables a step sums, with a submodule and a counter."""
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(0.5)
        self.sub = tf.Module()
        self.sub.v = tf.Variable(-0.25)
        self.steps = 0


DMOD = DMod()
DPOOL = [tf.Variable(1.5), tf.Variable(-2.0), tf.Variable(3.0, trainable=False)]


def dsum():
    """The module's trainable variables summed, plus how many variables it has."""
    return tf.add_n(DMOD.trainable_variables) + 0.01 * len(DMOD.variables)
'''

_PAST_SETATTR = [  # (no variable made in the call: janus would run it all eagerly)
    "object.__setattr__(DMOD, 'b', DPOOL[n % 3])",
    "vars(DMOD).update(b=DPOOL[k % 3])",
    "DMOD.__dict__['w'] = DPOOL[n % 2]",
    "DMOD.__dict__.pop('b', None)",
    "DMOD.sub.__dict__['q'] = DPOOL[n % 3]",
    "vars(DMOD.sub).pop('q', None)",
    "DMOD.__dict__['steps'] = DPOOL[1]",
    "object.__setattr__(DMOD, 'sub', tf.Module())",
    "DMOD.__dict__.setdefault('raw', []).append(DPOOL[n % 2])",
    "DMOD.steps = n",  # (an ordinary write: the watch follows it)
]


@rule(0.5, max_depth=2)
def module_dict_past_setattr(g):
    """(F265) A tf.Module's variables changed past its `__setattr__` by a call (under a
    test), its `trainable_variables` summed by it and the calls after."""
    _helper(g, _MODULE)
    change = g.choice(_PAST_SETATTR)
    use = "acc = acc + tf.cast(dsum(), acc.dtype) * 0.1"
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


_RECORD = '''\
import dataclasses


@dataclasses.dataclass
class DCfg:
    """A config record a step formats and copies into a dict."""
    lr: float = 0.125
    steps: int = 3
    name: str = "run"
    dims: tuple = (2, 3)


DCFG = DCfg()
DARGS = {"c": DCFG}
'''

_RECORD_CHANGES = [
    "DCFG.lr = 0.25 * (n % 3)",
    "DCFG.name = 'r%d' % (n % 2)",
    "DCFG.dims = (n % 3, 1)",
    "DCFG.steps = float(n % 2)",
    "DCFG.lr = DCFG.lr + 0.5",
]
_RECORD_USES = [
    "s.hist.append('{0.lr}/{0.name!r}/{0.dims[0]}'.format(DCFG))",
    "s.hist.append('{c.steps:>3}|{c.lr}'.format(c=DCFG))",
    "s.hist.append('{c.lr}'.format_map({'c': DCFG}))",
    "s.hist.append('{c.lr}'.format_map(DARGS))",
    "acc = acc + tf.cast(dataclasses.asdict(DCFG)['lr'], acc.dtype)",
    "acc = acc * dataclasses.astuple(DCFG)[1]",
    "s.hist.append(len(dataclasses.astuple(DCFG)[3]))",
]


@rule(0.5, max_depth=2)
def record_read_by_library(g):
    """(F266, F290) A config dataclass formatted by `str.format` field paths or copied by
    `dataclasses.asdict`/`astuple`, changed by a call (under a test) or not."""
    _helper(g, _RECORD)
    change, use = g.choice(_RECORD_CHANGES), g.choice(_RECORD_USES)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])
