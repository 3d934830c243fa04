"""Generator rules for tapes around loops and branches janus may build as a
tf.while_loop / tf.cond. v43 (janus/graphgen/tapes.py): the tape records outside
the loop or branch and is paused (`stop_recording`) or watches a new tensor inside it,
then differentiates after it. TF's gradient of a While/If op ignores what the tape was
told inside (a silent wrong gradient in session 13's code); a tape entered inside the
body is the body's own. v44 (janus/graphgen/loop_gradients.py): a tape over a loop
that grows a list from a variable and per-iteration values. v48
(janus/graphgen/connectivity.py): sources only one way of a branch, or only a loop body
that may not run, reads (Python's tape gives None). The loop counts and branch tests vary with `n`, `flag`, `xs` and tensor values.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_loops import _walker

_TESTS = ["tf.reduce_sum(acc) > 0.0", "tf.reduce_max(x) > 0.5", "flag", "n % 2 == 1"]
_COUNTS = ["n", "n % 3 + 1", "len(xs)"]


def _told(g, tape: str, v: str, xf: str, ind: str) -> list[str]:
    if g.chance(0.6):
        return [f"{ind}with {tape}.stop_recording():",
                f"{ind}    {v} = {v} + tf.reduce_sum({xf} * {xf})",
                f"{ind}{v} = {v} + tf.reduce_mean(tf.tanh({xf}))"]
    z = g.fresh("z")
    return [f"{ind}{z} = {xf} * 2.0",
            f"{ind}{tape}.watch({z})",
            f"{ind}{v} = {v} + tf.reduce_sum({z} * {xf})"]


@rule(0.8)
def tape_told_in_body(g):
    """A tape recording outside a loop or branch, paused or watching inside it."""
    tape, gr, v, xf = g.fresh("tape"), g.fresh("gr"), g.fresh("v"), g.fresh("xf")
    lines = [f"{xf} = tf.cast(x, tf.float32)",
             f"with tf.GradientTape(persistent=True) as {tape}:",
             f"    {tape}.watch({xf})",
             f"    {v} = tf.reduce_sum({xf}) * 0.5"]
    if g.chance(0.5):
        i = g.fresh("i")
        lines.append(f"    for {i} in range({g.choice(_COUNTS)}):")
        lines += _told(g, tape, v, xf, "        ")
        if g.chance(0.5):
            lines += [f"        if tf.reduce_sum({v}) > {g.choice(['100.0', '2.0'])}:",
                      "            break"]
    else:
        lines.append(f"    if {g.choice(_TESTS)}:")
        lines += _told(g, tape, v, xf, "        ")
        lines += ["    else:", f"        {v} = {v} * 2.0"]
    lines += [f"{gr} = {tape}.gradient({v}, {xf})",
              f"acc = acc + tf.cast(tf.zeros_like(acc) if {gr} is None else "
              f"tf.reshape({gr}, tf.shape(acc)) if {gr}.shape == acc.shape else "
              f"tf.reduce_sum({gr}), acc.dtype) * 0.1",
              f"s.hist.append({gr} is None)"]
    return lines


@rule(0.5)
def tape_of_the_body(g):
    """A tape entered inside a loop body (a step per iteration): the body's own."""
    tape, i, y = g.fresh("tape"), g.fresh("i"), g.fresh("y")
    return [f"for {i} in range({g.choice(_COUNTS)}):",
            f"    with tf.GradientTape() as {tape}:",
            f"        {tape}.watch(acc)",
            f"        {y} = tf.reduce_sum(tf.tanh(acc * 0.5))",
            f"    acc = acc - tf.cast({tape}.gradient({y}, acc), acc.dtype) * 0.01",
            f"    if tf.reduce_max(acc) > {g.choice(['10.0', '0.0'])}:",
            "        break"]


@rule(0.8)
def tape_over_items(g):
    """A tape over an episode (a walker of the module stepped until done) that grows a
    list from a variable and each step's own values (the observation, the step), at
    times from a value the loop carries too, or after items from before the loop; the
    gradient after it (janus/graphgen/loop_gradients.py batches it where it may)."""
    name, env = g.fresh("Walk"), g.fresh("WALK_")
    t, ob, dn = g.fresh("gt"), g.fresh("go"), g.fresh("gd")
    tape, items, h, gr, p = (g.fresh("tape"), g.fresh("items"), g.fresh("h"),
                             g.fresh("gr"), g.fresh("p"))
    w = g.choice(["V0", "AFF.w"])
    lines = _walker(g, name, env)
    item = g.choice([f"tf.math.log({p})", f"{p} * float({t} + 1)",
                     f"tf.square({p} - tf.reduce_sum(tf.convert_to_tensor({ob})))",
                     f"tf.stack([{p}, {p} * 2.0])[{t} % 2]"])
    if g.chance(0.3):
        item = f"{item} + {h} * 0.25"
    lines += [f"{ob} = {env}.state.astype(np.float32)", f"{h} = tf.zeros([])",
              f"with tf.GradientTape() as {tape}:",
              f"    {items} = {'[' + w + ' * 0.5]' if g.chance(0.4) else '[]'}",
              f"    for {t} in range({g.choice(['40', 'n + 8', '12'])}):",
              f"        {p} = tf.sigmoid({w} * tf.reduce_sum(tf.convert_to_tensor({ob})) "
              f"+ 0.1 * {t} + tf.reduce_mean(tf.cast(x, tf.float32)))",
              f"        {items}.append({item})",
              f"        {h} = {h} * 0.5 + {p}",
              f"        {ob}, _, {dn} = {env}.step({p} - 0.5)",
              f"        if {dn}:",
              "            break",
              f"    y_{gr} = tf.reduce_sum(tf.stack({items}))",
              f"{gr} = {tape}.gradient(y_{gr}, {w})",
              f"acc = acc + tf.cast(0.0 if {gr} is None else {gr}, acc.dtype) * 0.1",
              f"s.hist.append(repr(len({items})) + repr({env}.steps))"]
    return lines


@rule(0.8)
def tape_one_sided(g):
    """(v48, F138) A tape watching sources that only one way of a branch reads (an `if`,
    a conditional expression, a variable read in one branch) or only a loop's body reads
    (a `while` on a tensor that may run no iteration): Python's tape gives None for what
    did not run (janus/graphgen/connectivity.py); the None-ness is kept in `s.hist`, and
    maybe a Keras-like update that skips None gradients."""
    tape, xa, xb, y = g.fresh("tape"), g.fresh("xa"), g.fresh("xb"), g.fresh("y")
    test = g.choice(_TESTS)
    other = g.choice([f"{xb} * 3.0", "V0 * 2.0", f"{xb} * V0"])
    lines = [f"{xa} = tf.cast(x, tf.float32) * 0.5",
             f"{xb} = tf.reduce_mean(tf.cast(x, tf.float32)) + 1.0",
             f"with tf.GradientTape(persistent={g.choice(['True', 'False'])}) as {tape}:",
             f"    {tape}.watch([{xa}, {xb}])"]
    shape = g.choice(["if", "expression", "while"])
    if shape == "if":
        both = f" + {xb}" if g.chance(0.3) else ""
        lines += [f"    if {test}:", f"        {y} = tf.reduce_sum({xa} * 2.0){both}",
                  "    else:", f"        {y} = {other}"]
    elif shape == "expression":
        lines.append(f"    {y} = tf.reduce_sum({xa} * 2.0) if {test} else {other}")
    else:
        lines += [f"    {y} = tf.reduce_sum({xa})",
                  f"    while {y} < {g.choice(['5.0', '0.0', '30.0'])}:",
                  f"        {y} = {y} * 1.5 + tf.abs({xb}) + 1.0"]
    grads = [g.fresh("g") for _ in range(3)]
    lines += [f"{', '.join(grads)} = {tape}.gradient({y}, [{xa}, {xb}, V0])",
              f"s.hist.append(({grads[0]} is None, {grads[1]} is None, {grads[2]} is None))"]
    for gr in grads:
        lines.append(f"acc = acc + tf.cast(0.0 if {gr} is None else tf.reduce_sum({gr}), "
                     "acc.dtype) * 0.1")
    if g.chance(0.4):  # (an optimizer skips a None gradient: only a real one moves V0)
        lines += [f"if {grads[2]} is not None:",
                  f"    V0.assign_sub({grads[2]} * 0.01)"]
    return lines
