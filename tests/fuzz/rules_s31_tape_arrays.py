"""Generator rules (session 31) for graphs TF cannot differentiate although every op has
a gradient (F336): a TensorArray written in a loop that may exit on a tensor test (its
flow, a variant, goes through a `SelectV2` whose gradient TF cannot build), read by its
size or stacked, in a program whose calls a caller's tape may record (`--outer-tape`).
Under a tape such a call runs plainly (graphgen/caller_tape.py); without one, the graph.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_EXITS = [
    "tf.reduce_sum({acc}) > {c}",
    "tf.reduce_max({acc}) > {c}",
    "tf.reduce_mean({acc}) < -{c}",
]
_STEPS = [
    "{acc} = {acc} + 1.0",
    "{acc} = {acc} * 1.5 + 0.25",
    "{acc} = tf.tanh({acc}) + {acc}",
]
_READS = [
    ["out.append({ta}.size())"],
    ["acc = acc + tf.cast({ta}.size(), acc.dtype) * 0.1"],
    ["acc = acc + tf.reduce_sum({ta}.stack(), 0) * 0.01"],
    ["out.append({ta}.stack())", "acc = acc + tf.cast({ta}.size(), acc.dtype)"],
]


@rule(0.6, max_depth=2)
def tensor_array_with_exit(g):
    """(F336) A TensorArray written by a `for` (a Python range) or `while` (a tensor
    count) loop that may `break` on a tensor test, then read."""
    ta, t, a = g.fresh("ta"), g.fresh("t"), g.fresh("a")
    exit_test = g.choice(_EXITS).format(acc=a, c=g.choice(["-0.5", "0.5", "2.0", "6.0"]))
    step = g.choice(_STEPS).format(acc=a)
    lines = [f"{a} = acc",
             f"{ta} = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)",
             f"{ta} = {ta}.write(0, {a})"]  # (one item: `stack` has a shape)
    if g.rng.random() < 0.5:
        lines += [f"for {t} in range(n % 3 + 2):",
                  f"    {step}",
                  f"    if {exit_test}:",
                  "        break",
                  f"    {ta} = {ta}.write({t} + 1, {a})"]
    else:
        lines += [f"{t} = tf.constant(0)",
                  f"while {t} < n + 2:",
                  f"    {t} = {t} + 1",
                  f"    {step}",
                  f"    if {exit_test}:",
                  "        break",
                  f"    {ta} = {ta}.write({t}, {a})"]
    lines += [line.format(ta=ta) for line in g.choice(_READS)]
    if g.rng.random() < 0.5:
        lines.append(f"acc = acc + {a} * 0.5")
    return lines
