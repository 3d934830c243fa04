"""Generator rules for what slow11 changed in conversion (v33): a Python number (or None)
bound before a tensor `if` and made a tensor by both branches, by one only, or changed as
Python by one (janus/graphgen/general.py's `_cond` carries it only when both branches make
it a tensor, or leave it as it was), inside a loop or not; read after the block both as a
Python value (its repr) and as a tensor.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_INITS = ["0.0", "0", "1.5", "k * 0.5", "None", "n"]


@rule(0.5, max_depth=2)
def python_number_tensor_if(g):
    """`t = <number or None>`, then a tensor `if` (in a short loop sometimes) whose
    branches each make `t` a tensor (`t += e * e`, `t = e`), leave it, or change it as
    Python; after it `t` goes to `s.hist` as text if it is a Python value, else into `acc`."""
    t, e = g.fresh("pn"), g.fresh("pe")
    init = g.choice(_INITS)

    def branch() -> str:
        options = [f"{t} = {e} * 0.5", f"{t} = tf.abs({e}) - 0.5", "pass", f"{t} = 2.5"]
        if init != "None":
            options += [f"{t} += 0.5 * {e} * {e}", f"{t} += tf.abs({e}) - 0.5", f"{t} += 1",
                        f"{t} = {t}"]
        return g.choice(options)

    test = g.choice([f"tf.reduce_sum(tf.abs({e})) < 1.0", f"tf.reduce_mean({e}) > 0.0",
                     g.tcond()])
    body = [f"{e} = {g.texpr()}", f"if {test}:", f"    {branch()}", "else:", f"    {branch()}"]
    if g.chance(0.5):
        i = g.fresh("pi")
        body = [f"for {i} in range(n % 3 + 1):"] + ["    " + line for line in body]
    return [f"{t} = {init}"] + body + [
        f"if {t} is None:", "    s.hist.append('none')",
        f"elif isinstance({t}, (int, float)):", f"    s.hist.append(repr({t}))",
        "else:", f"    acc = acc + {t}"]
