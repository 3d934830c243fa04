"""Generator rules (v40) for tensor identity through branches and loops
(janus/graphgen/identity.py): a value that is, on some paths, the very tensor object of
another (`b = acc if n % 2 else x`, a loop that may leave `h` as it was, the user's own
`tf.cond(..., lambda: x, ...)`), then observed by identity: `is` / `is not`, `id()`, a
tape watching it or differentiating with respect to it, or a tape watching the other one
after the branch was taken (npsum12-F110: the gradient then flows through the value in
Python). The tests vary with `n`, `flag` and tensor values, so janus's tf.cond /
tf.while_loop plans meet them.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_MAYBE_X = ["acc if n % 2 else x", "x if flag else acc * 0.5", "x if n > 2 else acc",
            "acc if tf.reduce_sum(acc) > 0.0 else x",
            "tf.cond(tf.reduce_sum(x) > 0.0, lambda: x, lambda: acc)",
            "xs[0] if xs else x"]


def _maybe_x(g, b: str) -> list[str]:
    """`b` bound to x on some paths (an expression, or a loop that may not change it)."""
    if g.chance(0.7):
        return [f"{b} = {g.choice(_MAYBE_X)}"]
    i = g.fresh("i")
    test = g.choice(["tf.reduce_sum(acc) > 100.0", f"tf.reduce_max(x) > {i}", "flag"])
    return [f"{b} = x",
            f"for {i} in range({g.choice(['n', 'n % 3', 'len(xs)'])}):",
            f"    if {test}:",
            f"        {b} = {b} * 0.5 + 0.25"]


@rule(0.8)
def identity_is(g):
    """`is`, `is not` and `id()` between a value that may be x and x."""
    b = g.fresh("b")
    lines = _maybe_x(g, b)
    check = g.choice([f"{b} is x", f"{b} is not x", f"id({b}) == id(x)",
                      f"x is {b} and n > 1"])
    lines += [f"if {check}:", "    k += 1", f"s.hist.append(repr({check}))",
              f"acc = acc + tf.cast(tf.reduce_mean({b}), acc.dtype) * 0.1"]
    return lines


@rule(0.8)
def identity_tape(g):
    """A tape over x or over a value that may be x, after the value was chosen."""
    b, tape, gr = g.fresh("b"), g.fresh("tape"), g.fresh("gr")
    lines = _maybe_x(g, b)
    watched = g.choice(["x", b])
    other = b if watched == "x" else "x"
    lines += [f"with tf.GradientTape() as {tape}:",
              f"    {tape}.watch({watched})",
              f"    y_{gr} = tf.reduce_sum(tf.tanh({watched}) * tf.cast({other}, "
              f"{watched}.dtype)) + tf.reduce_sum({b} * {b})",
              f"{gr} = {tape}.gradient(y_{gr}, {watched})",
              f"acc = acc + tf.cast(tf.zeros_like(acc) if {gr} is None else "
              f"tf.reshape({gr}, tf.shape(acc)) if {gr}.shape == acc.shape else "
              f"tf.reduce_sum({gr}), acc.dtype) * 0.1"]
    return lines
