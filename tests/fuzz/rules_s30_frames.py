"""Generator rules (session 30, after v76) from session 30's probes: the program's callables
and absl's logging. A callable object whose `__eq__`/`__hash__` count, or whose `__eq__`
reads `other.name` (an error against anything else), is called on a tensor, a Python
number, a fed int, a list grown in a loop: plain Python never compares it; janus's tables
of known callables compared it with `==` (F316). absl's `log_every_n`, `log_first_n`,
`log_if`, `warning` and its logger's methods find their caller themselves (its file and
line key `log_every_n`'s counters): each side keeps the records absl made for its own
file (F317).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_CALLABLES = '''\
class CountingCall:
    """A callable whose __eq__ and __hash__ count (plain Python never runs them)."""
    def __init__(self, k):
        self.k = k
        self.compared = 0
        self.hashed = 0

    def __eq__(self, other):
        self.compared += 1
        return isinstance(other, CountingCall) and other.k == self.k

    def __hash__(self):
        self.hashed += 1
        return 7

    def __call__(self, v):
        return sum(v) * self.k if isinstance(v, list) else v * self.k


class NaiveCall:
    """A callable whose __eq__ reads `other.name` (an error for any other object)."""
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return self.name == other.name

    __hash__ = object.__hash__

    def __call__(self, v):
        return tf.nn.relu(v) if self.name == "relu" else tf.tanh(v)


CCALL = CountingCall(0.5)
NCALL = NaiveCall("relu")
'''

_CALL_USES = [
    "acc = acc + tf.cast(CCALL(tf.cast(acc, tf.float32)), acc.dtype)",
    "acc = acc + tf.cast(CCALL(float(n)), acc.dtype)",
    "acc = acc + tf.cast(CCALL(n), acc.dtype)",
    "acc = acc + tf.cast(CCALL([float(i) for i in range(n % 3 + 1)]), acc.dtype)",
    "acc = tf.cast(NCALL(tf.cast(acc, tf.float32)), acc.dtype)",
    "acc = acc + tf.cast(CCALL(NCALL(tf.cast(acc, tf.float32))), acc.dtype)",
]


@rule(0.4, max_depth=2)
def callable_objects_compared(g):
    """(F316) A callable object with an effectful or naive `__eq__` called on a tensor, a
    number or a list (under a test: some calls)."""
    _helper(g, _CALLABLES)
    use = g.choice(_CALL_USES)
    return g.choice([[use], [f"if {g.pcond()}:", f"    {use}"]])


_ABSL = '''\
import logging as _logging
import os as _os

from absl import logging as _absl

ALOG = []  # (the records absl made for this side's file: function, line, message; by its
# whole path: both sides' files share a basename since F439, F475)


class _AbslKeep(_logging.Handler):
    def emit(self, record):
        if _os.path.abspath(record.pathname) == _os.path.abspath(__file__):
            ALOG.append((record.funcName, record.lineno, record.getMessage()))


_absl.get_absl_logger().addHandler(_AbslKeep())
'''

_ABSL_USES = [
    "_absl.log_every_n(_absl.WARNING, 'every2 %s', 2, n)",
    "_absl.log_every_n(_absl.WARNING, 'every3 %s', 3, flag)",
    "_absl.log_first_n(_absl.WARNING, 'first2 %s', 2, n)",
    "_absl.log_if(_absl.WARNING, 'if %s', flag, n)",
    "_absl.warning('warning %s', n)",
    "_absl.get_absl_logger().warning('logger %s', flag)",
]


@rule(0.3, max_depth=2, eager=True)
def absl_logging_sites(g):
    """(F317) absl's logging from the step (or a block janus made a function of): its
    records name the user's line, its counters count per line."""
    _helper(g, _ABSL)
    use = g.choice(_ABSL_USES)
    return g.choice([[use], [f"if {g.pcond()}:", f"    {use}"],
                     ["for _ in range(2):", f"    {use}"]])
