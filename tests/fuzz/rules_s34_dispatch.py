"""Generator rules (session 34) for how an attribute read is dispatched (F396): a config
whose `__getattr__` answers None for a key set (or dropped) later, on the instance or on
its class; a property replaced on the class or on a subclass before it (or shadowed by a
plain class attribute); a non-data descriptor shadowed by the instance's own attribute;
a wrapper delegating through `__getattr__` given an attribute of its own. The change is
made by a call (under a Python test, so some calls change it and the next ones read it)
and read by the same call or a later one.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CLASSES = '''\
class DCfg:
    """A config answering None for a key it lacks."""
    def __init__(self):
        self.lr = 0.5

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class DBase:
    def __init__(self):
        self.base = 2.0

    @property
    def scale(self):
        return self.base * 2


class DNet(DBase):
    pass


class DTwice:
    """A non-data descriptor of the program's."""
    def __get__(self, obj, cls):
        return obj.base * 3


class DHold:
    tw = DTwice()

    def __init__(self):
        self.base = 1.5


class DWrap:
    """Delegates what it lacks to the object it wraps."""
    def __init__(self, inner):
        self.module = inner

    def __getattr__(self, name):
        return getattr(self.module, name)


DPROPS = [property(lambda self: self.base * 5), property(lambda self: -self.base),
          property(lambda self: 0.25)]
DCFG = DCfg()
DNET = DNet()
DHOLD = DHold()
DWRAPPED = DWrap(DHold())
'''

_PAIRS = [  # (changes, the reads they change the dispatch of)
    (["DCFG.use_ema = 0.25 * (n % 3)", "DCFG.__dict__.pop('use_ema', None)",
      "DCfg.use_ema = 0.5 + n % 2"],
     ["acc = acc + tf.cast(0.0 if DCFG.use_ema is None else DCFG.use_ema, acc.dtype)"]),
    (["DCfg.gain = float(n % 2) + 0.5", "DCFG.gain = 2.0", "DCFG.__dict__.pop('gain', None)"],
     ["acc = acc + tf.cast((DCFG.gain or 0.0) * DCFG.lr, acc.dtype)"]),
    (["DBase.scale = DPROPS[n % 3]", "DNet.scale = DPROPS[n % 3]"],
     ["acc = acc + tf.cast(DNET.scale * 0.1, acc.dtype)",
      "acc = acc + tf.cast(DNet().scale * 0.1, acc.dtype)"]),
    (["DNet.scale = 0.75", "DNet.scale = DPROPS[n % 3]"],
     ["acc = acc + tf.cast(DNET.scale * 0.1, acc.dtype)"]),
    (["DHOLD.tw = float(n % 5)", "DHOLD.__dict__.pop('tw', None)", "DHold.tw = DPROPS[n % 3]"],
     ["acc = acc + tf.cast(DHOLD.tw * 0.1, acc.dtype)"]),
    (["DWRAPPED.base = 0.5 * n", "DWRAPPED.__dict__.pop('base', None)",
      "DWRAPPED.module.base = 1.0 + n % 2"],
     ["acc = acc + tf.cast(DWRAPPED.base * 0.1 + DWRAPPED.tw * 0.01, acc.dtype)"]),
]


@rule(0.5, max_depth=2)
def attribute_dispatch_changed(g):
    """(F396) Where an attribute read is found (instance, class property or descriptor,
    a `__getattr__` fallback) changed by a call (under a test), read by it and by the
    calls after."""
    _helper(g, _CLASSES)
    changes, uses = g.choice(_PAIRS)
    change, use = g.choice(changes), g.choice(uses)
    c = g.rng.randint(1, 3)  # (a test the call sequence's `n` flips: graphs of both sides)
    test = g.choice([f"n > {c}", f"n < {c}", "n % 2 == 0", g.pcond()])
    return g.choice([
        [f"if {test}:", f"    {change}", use],
        [use, f"if {test}:", f"    {change}"],
    ])
