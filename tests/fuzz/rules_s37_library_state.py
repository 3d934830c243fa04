"""Generator rules (session 37) for a third-party package's state janus cannot see (F430,
F431): the step calls functions a library made (closures over an `itertools.count`, a
dict, a generator, an eager `tf.data` iterator taken under `tf.init_scope()`) and a
library object whose class's `__call__` advances its iterator, for their values or as
statements, and reads what they keep. Plain Python moves that state on every call; a
graph that folded a trace's answer in would not (graphgen/third_party.py: such calls are
graph breaks; graphgen/eager_iterators.py: an eager element taken while tracing refuses).

The library is a module the program writes under a `site-packages` directory whose path
has no "/janus" (runtime.user_file: a library's code). Each side of a comparison makes
its own closures and objects (the program's module runs once per side). Registered in
`rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_LIBRARY = '''\
import os
import sys
import tempfile

_LLIB = os.path.join(tempfile.gettempdir(), "fuzz_s37_library", "site-packages")
_LSRC = """
import itertools

import tensorflow as tf


def counter():
    ids = itertools.count()
    return lambda: next(ids)


def tally():
    seen = {"n": 0}

    def bump():
        seen["n"] += 1

    def count():
        return seen["n"]
    return bump, count


def generated():
    def made():
        n = 0
        while True:
            n += 2
            yield n
    items = made()
    return lambda: next(items)


def elements():
    items = iter(tf.data.Dataset.range(10 ** 6))

    def take():
        with tf.init_scope():  # (eager, also while a graph is built)
            return int(next(items))
    return take


def scale(x):
    return x * 0.5


class Loader:
    def __init__(self):
        self.items = iter(range(10 ** 6))
        self.taken = []

    def __call__(self):
        self.taken.append(next(self.items))
"""


def _lwrite():
    """The library's module, written once."""
    if not os.path.exists(os.path.join(_LLIB, "fuzz_s37ids.py")):
        os.makedirs(_LLIB, exist_ok=True)
        temporary = os.path.join(_LLIB, "fuzz_s37ids.%d.tmp" % os.getpid())
        with open(temporary, "w") as written:
            written.write(_LSRC)
        os.replace(temporary, os.path.join(_LLIB, "fuzz_s37ids.py"))


_lwrite()
if _LLIB not in sys.path:
    sys.path.append(_LLIB)
import fuzz_s37ids  # noqa: E402

NEXT_ID = fuzz_s37ids.counter()
BUMP, BUMPED = fuzz_s37ids.tally()
NEXT_EVEN = fuzz_s37ids.generated()
TAKE_ELEMENT = fuzz_s37ids.elements()
LSCALE = fuzz_s37ids.scale
LOADER = fuzz_s37ids.Loader()
'''

_VALUES = ["NEXT_ID()", "NEXT_EVEN()", "TAKE_ELEMENT()", "BUMPED()", "len(LOADER.taken)"]
_STATEMENTS = ["BUMP()", "LOADER()", "NEXT_ID()", "TAKE_ELEMENT()"]


@rule(0.4, max_depth=2)
def library_hidden_state(g):
    """(F430, F431) A library's closure or object whose state moves on every call (an
    iterator, a counter, a dict), called for its value or as a statement, and read."""
    _helper(g, _LIBRARY)
    value, statement = g.choice(_VALUES), g.choice(_STATEMENTS)
    use = g.choice([
        f"k = k + {value}",
        f"acc = acc + tf.cast({value}, acc.dtype) * 0.01",
        f"out.append({value})",
        "acc = LSCALE(acc) + 1.0",
    ])
    return g.choice([
        [statement, use],
        [f"if {g.pcond()}:", f"    {statement}", use],
        [use, statement],
        ["for _ in range(2):", f"    {statement}", use],
    ])


_WORLD = '''\
import glob as _glob
import os as _os
import pathlib as _pathlib
import tempfile as _tempfile

world = (lambda made: lambda: made)(_tempfile.mkdtemp(prefix="fuzz_s37_world_"))
# (each side of a comparison its own directory; a function, not a compared global)


def world_tick():
    """A file the step rewrites and reads back (a progress file, an early-stop flag)."""
    tick = _pathlib.Path(world(), "tick")
    n = int(tick.read_text()) + 1 if tick.exists() else 1
    tick.write_text(str(n))
    if n % 3 == 0:
        _pathlib.Path(world(), "stop%d" % n).touch()
    return n
'''

_WORLD_READS = [
    "world_tick()",
    "(2 if _os.path.exists(_os.path.join(world(), 'stop3')) else 1)",
    "len(_glob.glob(_os.path.join(world(), 'stop*')))",
    "int(tf.io.gfile.exists(_os.path.join(world(), 'tick')))",
]


@rule(0.3, max_depth=2)
def outside_world_reads(g):
    """(F432) Files the step writes and reads back on every call (a tick file, stop flags
    made every third call, a directory listing): plain Python asks the file system on
    every call."""
    _helper(g, _WORLD)
    value = g.choice(_WORLD_READS)
    use = g.choice([
        f"k = k + {value}",
        f"acc = acc + tf.cast({value}, acc.dtype) * 0.01",
        f"out.append({value})",
    ])
    return g.choice([
        ["world_tick()", use],
        [use],
        [f"if {g.pcond()}:", "    world_tick()", use],
    ])
