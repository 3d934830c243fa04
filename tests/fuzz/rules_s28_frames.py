"""Generator rules (session 28, after v73) from session 28's probes: frames and module
namespaces. A step that reads its own frame (`sys._getframe().f_code.co_name`,
`inspect.currentframe().f_globals[...]`) or a helper's, logs through a logger (the
record's funcName and lineno compared), reads a global through `globals()[...]`,
`sys.modules[__name__].__dict__[...]` or `vars(module)[...]` and writes one through
`globals()[...] = v` (F231, F232), reads and writes the settings of a module object the
program made at run time (`types.ModuleType("run_cfg")`, F233). A call changes the
setting under a Python test, so that the graphs of the calls after must see it.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_FRAMES = '''\
import inspect as _inspect
import logging as _logging
import sys as _sys

FSCALE = 0.5
FLOG = _logging.getLogger(__name__ + ".frames")  # (one per side: both run in one process)


def frame_name(v):
    """Its own function's name, read from its frame, and a number."""
    return _sys._getframe().f_code.co_name + str(v)
'''

_FRAME_USES = [
    "out.append(_sys._getframe().f_code.co_name)",
    "acc = acc * _inspect.currentframe().f_globals['FSCALE']",
    "out.append(_inspect.stack()[0].function)",
    "out.append(frame_name(k))",
]
_LOG_USES = [
    "FLOG.warning('n=%s k=%s', n, k)",
    "_logging.getLogger(FLOG.name).error('acc %s', k)",
    "FLOG.log(_logging.ERROR, 'flag %s', flag)",
]


@rule(0.3, max_depth=2, eager=True)
def frame_reads(g):
    """(F231) The step (or a helper) reads its own frame: its name, its globals."""
    _helper(g, _FRAMES)
    return [g.choice(_FRAME_USES)]


@rule(0.3, max_depth=2, eager=True)
def logging_records(g):
    """(F231) A logger's record made by the step: funcName and lineno the user's (also
    inside a block janus made a function of)."""
    _helper(g, _FRAMES)
    use = g.choice(_LOG_USES)
    return g.choice([[use], [f"if {g.pcond()}:", f"    {use}"]])


_NAMESPACE = '''\
import sys as _sys
import types as _types

NSLR = 0.5
RCFG = _types.ModuleType("run_cfg")
RCFG.LR = 0.25


def set_nslr(v):
    global NSLR
    NSLR = v
'''

_NS_READS = [
    "acc = acc * globals()['NSLR']",
    "acc = acc + _sys.modules[__name__].__dict__['NSLR']",
    "acc = acc + vars(_sys.modules[__name__])['NSLR'] * 0.5",
    "acc = acc + globals().get('NSLR', 2.0)",
    "acc = acc * RCFG.LR",
]
_NS_WRITES = [
    "globals()['NSLR'] = 0.25 + 0.25 * (n % 3)",
    "set_nslr(0.5 + 0.5 * (n % 2))",
    "RCFG.LR = 0.125 * (1 + n % 3)",
]


@rule(0.6, max_depth=2)
def namespace_reads(g):
    """(F232, F233) A global read through its module's namespace as a dict, a setting of
    a module made at run time; changed by some calls (under a test), read after."""
    _helper(g, _NAMESPACE)
    read, write = g.choice(_NS_READS), g.choice(_NS_WRITES)
    return g.choice([
        [f"if {g.pcond()}:", f"    {write}", read],
        [read, f"if {g.pcond()}:", f"    {write}"],
        [read],
    ])
