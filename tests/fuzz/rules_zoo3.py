"""Generator rules (v71) from the zoo's third round: `tf.TensorArray`s in loops that stop
on a tensor test (zoo p61), and the eager TensorArray semantics a graph does not have.

Registered in `rules.RULES` on import (the generator imports this module last).
"""
from __future__ import annotations

from tests.fuzz.rules import rule


@rule(0.6, max_depth=1)
def tensor_array_exit(g):
    """(v71) A TensorArray written in a loop that stops on a tensor test (`while <tensor>
    and t < n:`, `if <tensor>: break` before or after the write): janus refused such a
    loop (a TensorArray was "a Python value") and ran it split; it is now carried as its
    flow by the loop's one tf.while_loop."""
    ta, t = g.fresh("ta"), g.fresh("t")
    clear = g.choice(["", "", ", clear_after_read=False"])
    lines = [f"{ta} = tf.TensorArray(acc.dtype, size=0, dynamic_size=True{clear})"]
    write = f"{ta} = {ta}.write({t}, acc)"
    step = f"acc = {g.choice(['acc * 0.5 + 0.25', 'tf.tanh(acc) + 0.5', 'acc + 1.0'])}"
    if g.chance(0.5):
        lines += [f"{t} = 0",
                  f"while tf.reduce_{g.choice(['sum', 'max', 'mean'])}(acc) < "
                  f"{g.choice(['1.0', '2.5', '4.0'])} and {t} < "
                  f"{g.choice(['n % 4 + 2', '3', 'len(xs) + 1'])}:",
                  f"    {step}", f"    {write}", f"    {t} += 1"]
    else:
        test = [f"    if {g.tcond()}:", "        break"]
        body = [f"    {write}"] + test if g.chance(0.5) else test + [f"    {write}"]
        lines += [f"for {t} in range({g.choice(['n % 3 + 2', '4', 'len(xs) + 1'])}):",
                  f"    {step}"] + body
    if clear and g.chance(0.6):
        lines += [f"if {ta}.size() > 0:",
                  f"    acc = acc + {ta}.read({ta}.size() - 1) * 0.25"]
    lines.append(g.choice([
        f"k = k + int({ta}.size())",
        f"out.append({ta}.size())",
        f"acc = acc + tf.reduce_sum({ta}.stack()) * 0.01" if g.chance(0.5) else
        f"acc = acc + tf.reduce_sum({ta}.concat()) * 0.01"]))
    return lines


@rule(0.4, max_depth=1)
def tensor_array_eager(g):
    """(v71, F167) What only an eager TensorArray does: one object every write changes
    (`ta.write(i, x)` not rebound), a read that clears its item (`stack()` gives zeros
    there; a second read raises). A graph returned the items anyway."""
    ta, i = g.fresh("ta"), g.fresh("i")
    size = g.choice(["2", "n % 2 + 2"])
    lines = [f"{ta} = tf.TensorArray(acc.dtype, size={size}"
             f"{g.choice(['', ', clear_after_read=False'])})"]
    if g.chance(0.5):
        lines += [f"for {i} in range({size}):", f"    {ta}.write({i}, acc * float({i}))"]
    else:
        lines += [f"{ta} = {ta}.write(0, acc).write(1, {g.texpr()})"]
    if g.chance(0.6):
        lines.append(f"acc = acc + {ta}.read({g.choice(['0', '1'])})")
    if g.chance(0.3):
        lines.append(f"acc = acc - {ta}.read(0) * 0.5")
    lines.append(f"acc = acc + tf.reduce_mean({ta}.stack(), axis=0)")
    return lines
