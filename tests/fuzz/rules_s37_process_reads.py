"""Generator rules (session 37) for process-wide state read through calls (F424, F425): a
Logger's level read through `logging.getLogger(name)` / `tf.get_logger()` (its `.level`,
`getEffectiveLevel()`, `isEnabledFor(...)`: `logging.disable` not drawn, it changes
those), `sys.getrecursionlimit()`, `gc.isenabled()`; set by some calls (where they are not the
call's value already) and read by the others. Set back as each program starts (they do
not leak into the worker's next programs); a call sets before it reads (one statement of
a kind sets it, the first: the plain and janus sides of a case share the settings, and
the plain side's call runs first). The recursion limits compared are far apart
(3000 / 3500): a plain run inside janus reads its limit plus janus's own frames (F425's
Left).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

WEIGHT = 0.4

_STATE = '''\
import gc
import logging
import sys

PS_NAME = "fuzz.process_reads"
logging.getLogger(PS_NAME).setLevel(logging.WARNING)  # (process-wide: as each program
tf.get_logger().setLevel(logging.WARNING)              # starts)
logging.disable(logging.NOTSET)
sys.setrecursionlimit(3000)
gc.enable()


def ps_set(kind, on):
    """Change a process-wide setting where it is not the one `on` names already."""
    if kind == "level" and logging.getLogger(PS_NAME).level != (20 if on else 40):
        logging.getLogger(PS_NAME).setLevel(20 if on else 40)
    elif kind == "tf_level" and tf.get_logger().level != (20 if on else 30):
        tf.get_logger().setLevel(20 if on else 30)
    elif kind == "limit" and sys.getrecursionlimit() != (3500 if on else 3000):
        sys.setrecursionlimit(3500 if on else 3000)
    elif kind == "gc" and gc.isenabled() != bool(on):
        (gc.enable if on else gc.disable)()
'''

_READS = {  # (each read depends on its own kind's setting only)
    "level": ["logging.getLogger(PS_NAME).level <= 20",
              "logging.getLogger(PS_NAME).getEffectiveLevel() < 30",
              "logging.getLogger(PS_NAME).isEnabledFor(logging.INFO)"],
    "tf_level": ["tf.get_logger().level == 20", "tf.get_logger().isEnabledFor(20)",
                 "tf.get_logger().getEffectiveLevel() <= logging.INFO"],
    "limit": ["sys.getrecursionlimit() > 3200", "sys.getrecursionlimit() // 500 == 7"],
    "gc": ["gc.isenabled()", "not gc.isenabled()"],
}
_VALUES = ["flag", "not flag", "n % 2 == 0", "n > 2", "len(xs) > 1", "True"]
_USES = [
    "acc = acc * (2.0 if {r} else 1.0)",
    "out.append({r})",
    "acc = acc + tf.cast(int({r}), acc.dtype)",
    "if {r}:\n    acc = acc - 0.5",
]


@rule(WEIGHT, max_depth=2)
def process_reads(g):
    """(F424, F425) A process-wide setting (a Logger's level, the recursion limit, the garbage collector's switch) set by the call where it is not the
    call's value already (or only under a Python test), then read through a call."""
    _helper(g, _STATE)
    kind = g.choice(sorted(_READS))
    use = g.choice(_USES).format(r=g.choice(_READS[kind])).split("\n")
    used = f"# (process_reads: {kind})\n"
    if used in g.helpers:  # (a later set of a kind read before would differ: the plain
        return use        # side's call runs first and sets it for the janus side's)
    _helper(g, used)
    set_it = f"ps_set({kind!r}, {g.choice(_VALUES)})"
    cond = [f"if {g.pcond()}:", f"    {set_it}"]
    return g.choice([  # (mostly set by some calls and read by the others)
        [set_it] + use,
        cond + use, cond + use, cond + use,
        use,
    ])
