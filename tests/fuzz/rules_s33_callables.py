"""Generator rules (session 33, after v78) for what `janus.jit` is given and for counts
rounded from a size (F369, F370).

`jitted_callables` jits (`JIT`, janus.jit on the janus side) what is not a plain
function: a `functools.partial` of a helper, a partial of a partial (its keywords
changed by a call, under a Python test: the partial reads them at each call), a
`staticmethod`/`classmethod`/`partialmethod` object, and callables without Python source
(`operator.mul`, `np.add`, a class whose `__call__` is a partial); or makes the
program's entry `State.run` a jitted partialmethod (`ENTRY = "method"`). Before F369 all
of these were janus internal errors on every call (or a TypeError at `jit` itself).

`rounded_size_range` loops over `range(math.ceil(x.shape[0] / 2))` and its kin
(`math.floor`, `int(n * 0.5)`, `round(n / 2)`, `math.trunc`, a fed int divisor): before
F370 the rounded count lost the size's bound and each general graph refused ("a range
past 2**62"), a graph per size.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper, _method

_CALLABLES = '''\
import operator


def cscaled(a, scale, shift=0.0):
    """A helper the partials below bind arguments of."""
    return a * scale + shift


C_SCALED = JIT(functools.partial(cscaled, scale=0.5))
C_NESTED_BASE = functools.partial(cscaled, shift=0.25)
C_NESTED_BASE.tag = "kept"  # (a partial with attributes: not flattened into the next)
C_NESTED = JIT(functools.partial(C_NESTED_BASE, 0.75))
C_PLAIN_PARTIAL = functools.partial(cscaled, scale=1.5)
C_KEYED = JIT(C_PLAIN_PARTIAL)
C_STATIC = JIT(staticmethod(lambda a: a * 0.5 - 0.125))


class CHolder:
    """Methods jitted as their descriptor objects."""
    @staticmethod
    def plain_twice(a):
        return a * 2.0

    twice = JIT(staticmethod(lambda a: a * 2.0))
    halved = JIT(classmethod(lambda cls, a: a * 0.5))

    def mul(self, a, k):
        return a * k

    thirds = JIT(functools.partialmethod(mul, k=1.0 / 3.0))


class CPartialCall:
    """A callable whose `__call__` is a partial (no `self`: no source janus converts)."""
    __call__ = functools.partial(lambda a: a + 1.0)


class CJ:
    """Callables without Python source, jitted (in a class: a module global that is a
    jitted function on one side only would differ in the fuzzer's heap)."""
    mul = JIT(operator.mul)
    add = JIT(np.add)
    call = JIT(CPartialCall())


C_HOLDER = CHolder()
'''

_USES = [
    "acc = acc + C_SCALED(acc) * 0.1",
    "acc = acc + C_NESTED(acc) * 0.1",
    "acc = acc + C_KEYED(acc) * 0.1",
    "acc = acc + C_NESTED(acc, shift=float(n % 3)) * 0.1",
    "acc = C_STATIC(acc)",
    "acc = acc + CJ.mul(acc, 0.25)",
    "acc = acc + tf.cast(CJ.add(float(n), 0.5), acc.dtype) * 0.1",
    "acc = C_HOLDER.twice(acc) * 0.5 + CHolder.halved(acc) * 0.5",
    "acc = C_HOLDER.thirds(acc) * 3.0",
    "acc = CJ.call(acc) - 1.0",
    "out.append(C_SCALED(float(n)))",
]

_CHANGES = [  # (the partial's own keywords, read at each of its calls)
    "C_PLAIN_PARTIAL.keywords['shift'] = float(n % 2)",
    "C_PLAIN_PARTIAL.keywords['scale'] = 1.5 if flag else 0.5",
]

_ENTRY = '''\
    def prun(self, x, xs, n, flag, scale):
        return f(self, x * scale, xs, n, flag)

    run = JIT(functools.partialmethod(prun, scale=1.0))
'''
_METHOD_ENTRY = 'ENTRY = "method"  # the fuzzer calls s.run(x, xs, n, flag)\n'


@rule(0.4, max_depth=2)
def jitted_callables(g):
    """(F369) Partials, nested partials, static/class/partial methods and callables
    without Python source, jitted, called by the program (their keywords changed by a
    call under a test); or the entry a jitted partialmethod."""
    _helper(g, _CALLABLES)
    if g.chance(0.15) and _ENTRY not in g.methods:
        _method(g, _ENTRY)
        _helper(g, _METHOD_ENTRY)
    use = g.choice(_USES)
    if g.chance(0.3):
        return [f"if {g.pcond()}:", f"    {g.choice(_CHANGES)}", use]
    return [use]


_ROUNDED = ["math.ceil({n} / 2)", "math.floor({n} / 2)", "int({n} * 0.5)",
            "round({n} / 2)", "math.trunc({n} / 2.5) + 1", "-math.floor(-{n} / 3)",
            "math.ceil({n} / (n % 3 + 1))", "math.ceil(abs({n} - 0.5) / 2)"]
_SIZES = ["x.shape[0]", "x.shape[-1]", "len(xs)", "n"]


@rule(0.4, max_depth=1)
def rounded_size_range(g):
    """(F370) A loop over a count rounded from a size (or a fed count) divided or scaled
    by a float: one graph for every size."""
    t = g.fresh("rt")
    count = g.choice(_ROUNDED).format(n=g.choice(_SIZES))
    if g.chance(0.5):
        return [f"for {t} in range({count}):",
                f"    acc = acc * 0.9 + tf.cast({t}, acc.dtype) * 0.1"]
    return [f"for {t} in range({count}):",
            f"    acc = acc + tf.reduce_sum(x[2 * {t}:2 * {t} + 2]) * 0.1",
            "    k += 1"]
