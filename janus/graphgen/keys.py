"""Dict keys and set members: Python hashes a key's value, which a trace may not know.

A Python number janus feeds to the graph (`values.SymbolicScalar`) refuses to be hashed:
`d[k] = y`, `d.get(k)`, `k in d`, `d.setdefault(k, [])`, `seen.add(k)` with `k` fed fail
the trace at that line, and the number stays guarded (one graph per value), as it does
when used as a count or an index. Its identity hash made janus's stand-in a key of the
user's dict (F145).

Text formatted from a fed number or a tensor during a trace (`str(k)`, `f"step{k}"`) is
a marker the write-back fills in after the run (fallback/heap.py). As a key it would be
the marker itself: equal to no key of the user's, nor to another formatting of the same
value. `check` refuses such a key wherever janus sees one: an item read, write or delete
(graphgen/runtime.py), the key of a dict or set method (`check_call`), and a dict handed
out of the graph (returned or written back to the heap: `heap.skeleton`). Such text is a
`formatted_text.FormattedText`, whose hash refuses too (`k in d`, a set literal).
"""
from __future__ import annotations

from janus import user_attributes
from janus.graphgen import formatted_text

KEYED_METHODS = frozenset({"get", "pop", "setdefault", "fromkeys", "__contains__",
                           "__getitem__", "__setitem__", "__delitem__", "add", "discard",
                           "remove"})
"""Methods of a dict or set whose first argument is a key (hashed)."""


def check(key, tracer) -> None:
    """Refuse `key` (or a part of a tuple key) made of text formatted during the trace."""
    if type(key) is tuple:
        for part in key:
            check(part, tracer)
        return
    if formatted_text.holds_marker(key):
        formatted_text.refuse(key, "used as a dict key or set member")


def check_call(fn, args: tuple, tracer) -> None:
    """The key of `d.get(k)`, `d.pop(k)`, `d.setdefault(k, v)`, `s.add(k)`...: see `check`."""
    owner = user_attributes.get(fn, "__self__")
    if args and isinstance(owner, (dict, set, frozenset)) and \
            user_attributes.get(fn, "__name__", "") in KEYED_METHODS:
        check(args[0], tracer)
