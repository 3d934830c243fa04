"""Generator rules (session 29, after v74) for the jitted function's own entry: its own
default arguments rebound between calls (F273: a graph kept the defaults it was traced
with), and calls that raise the user's own exception on every call, or on calls of one
kind (F275: each such call was traced again, 20-100 ms a call).

`own_defaults_rebound` makes the program's entry the jitted method `State.run` with a
positional and a keyword-only default it reads (`ENTRY = "method"`); a call rebinds them
or changes the keyword ones in place (under a Python test: the next calls see it).
`raises_every_call` raises a `ValueError`/`KeyError` of the user's own after heap writes,
on every call or on the calls of one flag, count or shape.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_ENTRY = '''\
    @JIT
    def run(self, x, xs, n, flag, scale=2.0, *, shift=0.5):
        x = x * tf.cast(scale, x.dtype) + tf.cast(shift, x.dtype)
        return f(self, x, xs, n, flag)
'''
_METHOD_ENTRY = 'ENTRY = "method"  # the fuzzer calls s.run(x, xs, n, flag)\n'

_REBINDS = [
    "type(s).run.__defaults__ = ({value},)",
    "type(s).run.__kwdefaults__ = {{'shift': {value}}}",
    "type(s).run.__kwdefaults__['shift'] = {value}",
    "type(s).run.__defaults__ = (2.0,) if flag else ({value},)",
]
_VALUES = ["float(n % 3)", "0.5 * k", "3.0", "2", "-1.0", "float(len(xs))"]


@rule(0.4, max_depth=2)
def own_defaults_rebound(g):
    """(F273) The jitted entry's own defaults (`scale`, keyword-only `shift`) rebound by a
    call, or the keyword ones changed in place, under a Python test."""
    if _ENTRY not in g.methods:
        g.methods.append(_ENTRY)
        g.helpers.append(_METHOD_ENTRY)
    change = g.choice(_REBINDS).format(value=g.choice(_VALUES))
    return [f"if {g.pcond()}:", f"    {change}"]


_RAISES = [
    "raise ValueError(f'bad batch {{x.shape}} at {{n}}')",
    "raise KeyError(n)",
    "raise ValueError('not ready')",
]
_WHEN = ["True", "n >= 0", "flag", "not flag", "len(xs) != 2", "x.shape[0] > 1",
         "s.count > 2", "n % 2 == 1"]


@rule(0.3, max_depth=1)
def raises_every_call(g):
    """(F275) A `raise` of the user's own after heap writes: on every call, or on the calls
    of one flag, count, list length, shape or heap state."""
    effect = g.choice(["s.count += 1", "G_LIST.append(k)", "s.total = s.total + 0.5",
                       "V0.assign_add(0.25)", "s.hist.append(n)"])
    work = f"acc = acc * {g.choice(['0.5', '2.0'])} + 1.0"
    return [effect, work, f"if {g.choice(_WHEN)}:", f"    {g.choice(_RAISES)}"]
