"""Generator rules (session 31, after v76) for a tensor-valued `or`/`and`/`if-else`
whose later operand computes with a Python number that changes per call (janus feeds it
once it changes: fuzz v76 seed 59, F338). Fed, the number reaches the operand as a
stand-in: an operation the stand-in lacks raised while traced (`abs(dv3)`), and the
graph guarded the other outcome, which the calls never had (a generation per call, each
graph failing its guard at once). The operand is one janus computes in the graph
(`abs`, a comparison of a sum) or one it cannot (`divmod`, `math.floor`, `&`, `<<`: the
trace must fail there, not guess); the `or` is a loop's exit test, a value kept, or an
`if-else`'s test.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_FLOAT_OPERANDS = ["abs({v}) > 1e6", "abs({v} - 3.0) < 0.01", "abs(-{v}) > 1e5",
                   "divmod({v}, 7.0)[1] > 6.99", "math.floor({v}) > 10 ** 6",
                   "{v} * 0.5 > 1e6"]
_INT_OPERANDS = ["abs({c} - 100) > 10 ** 6", "({c} & 1) == 7", "{c} << 2 > 10 ** 7",
                 "abs(-{c}) > 10 ** 6", "divmod({c}, 5)[0] > 10 ** 6"]


def _operand(g, v: str) -> str:
    ops = g.choice([_FLOAT_OPERANDS, _INT_OPERANDS])
    return g.choice(ops).format(v=v, c="s.count")


@rule(0.6, max_depth=1)
def fed_number_operand(g):
    """(F338) `s.count` grows per call (fed); a float stepped from it; a tensor test
    `or`-ed with an operation on one of them, as a loop's exit test (kept as a value),
    a value read after, or an `if-else`'s test."""
    v, h, i, d = g.fresh("fv"), g.fresh("fh"), g.fresh("fi"), g.fresh("fd")
    test = f"tf.reduce_sum({h}) > {g.choice(['1.0', '2.5', '4.0'])}"
    lines = ["s.count += 1", f"{v} = G_SCALE * (s.count + 1)", f"{h} = acc"]
    shape = g.choice(["loop", "loop", "value", "ifelse"])
    if shape == "loop":
        joined = g.choice([f"{test} or {_operand(g, v)} or {i} >= 6",
                           f"{test} or {_operand(g, v)}",
                           f"{test} and not {_operand(g, v)}"])
        lines += [f"for {i} in range({g.choice(['6', 'n + 3'])}):",
                  f"    {h} = {h} * 0.7 + tf.cast(V0, {h}.dtype)",
                  f"    {v} = ({v} + 1.0) * 0.75",
                  f"    {d} = {joined}",
                  f"    if {d}:",
                  "        break",
                  f"s.hist.append(repr({v}))"]
    elif shape == "value":
        lines += [f"{d} = {test} {g.choice(['or', 'and'])} {_operand(g, v)}",
                  f"acc = acc + (0.5 if {d} else -0.25)"]
    else:
        lines += [f"{d} = ({v} * 2.0 if {_operand(g, v)} else {v}) if {test} else {v} + 1.0",
                  f"s.hist.append(repr({d}))"]
    if g.chance(0.5):
        lines.append(f"acc = acc + {h} * 0.5")
    return lines
