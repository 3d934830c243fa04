"""Generator rules (v18, v21) for loops that break on a tensor and scalar reads kept in a graph:
janus/graphgen/exits.py (a loop whose only way out is `if <test>: break` becomes one
tf.while_loop) and janus/graphgen/host_scalars.py (`t.numpy()` of a scalar stays a
tensor while it is only compared, converted with int()/float()/bool() or handed to TF).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule


def _read(g, name: str) -> str:
    """`name = <scalar tensor>.numpy()` (or `int(...)`, `float(...)` of one): an int
    (argmax) or a float/int reduction."""
    return g.choice([
        f"{name} = tf.argmax(tf.reshape(tf.cast({g.tensor()}, tf.float32), [-1])).numpy()",
        f"{name} = tf.reduce_sum({g.tensor()}).numpy()",
        f"{name} = tf.reduce_max(tf.cast({g.tensor()}, tf.float32)).numpy()",
        f"{name} = tf.size({g.tensor()}).numpy()",
        f"{name} = int(tf.argmax(tf.reshape(tf.cast({g.tensor()}, tf.float32), [-1])))",
        f"{name} = float(tf.reduce_mean(tf.cast({g.tensor()}, tf.float32)))",
    ])


def _read_test(g, name: str) -> str:
    c = g.choice(["0", "1", "2", "0.5", "1.5", "-1.0", "0.1"])
    return g.choice([f"{name} == {c}", f"{name} > {c}", f"{name} <= {c}", f"{name} != {c}",
                     f"bool({name})", f"int({name}) > 1", f"float({name}) < {c}"])


@rule(1.0, max_depth=1)
def exit_loop(g):
    """`for` over a range, xs or a local list (or a `while` on a tensor counter) whose only
    way out is `if <test>: break`
    (a tensor test, a scalar read, or a Python one; or an and/or/not of those; with an
    `if <test>: continue` before or after it, or a second exit test), the rest of the body growing lists,
    carrying tensors, maybe changing Python values, printing or writing the heap (what
    keeps the loop unrolled), and code after the loop reading what it made."""
    i, lst, h = g.fresh("ei"), g.fresh("grown"), g.fresh("h")
    header = g.choice([f"for {i} in range({g.choice(['4', 'n % 5', 'n + 2', 'len(xs) + 1'])}):",
                       f"for {i} in xs:", f"for {i} in [acc, acc * 2.0, acc - 1.0]:",
                       f"while {i} < {g.choice(['3', '5', 'n + 1'])}:"])
    lines = [f"{lst} = []", f"{h} = acc"]
    if header.startswith("while"):  # (a tensor counter: bounded, and carried by the loop)
        lines.append(f"{i} = tf.constant(0)")
    lines.append(header)
    if header.startswith("while"):
        lines.append(f"    {i} = {i} + 1")
    step = g.choice([f"    {h} = {h} * 0.7 + tf.cast(V0, {h}.dtype)",
                     f"    {h} = tf.sin({h}) + 1.0",
                     f"    {h} = {h} + tf.cast(tf.reduce_mean({h}), {h}.dtype) * 0.5"])
    lines.append(step)
    if header.startswith("for") and "range(" in header and g.chance(0.4):
        # the range item indexes a tensor: a fed int in the loop's tf.while_loop (F51)
        lines.append(f"    {h} = {h} + tf.reshape(x, [-1])[{g.choice([f'{i} % 2', f'-1 - {i} % 2'])}]")
    read = None
    if g.chance(0.5):
        read = g.fresh("r")
        lines.append("    " + _read(g, read))
    test = _read_test(g, read) if read is not None and g.chance(0.7) else \
        g.choice([f"tf.reduce_sum({h}) > {g.choice(['1.0', '3.0', '10.0'])}",
                  f"tf.reduce_max({h}) < 0.5", g.pcond()])
    if g.chance(0.4):  # (v21) and/or/not over tensor and Python parts
        test = _compound(g, test, h, i, lst)
    if g.chance(0.3):  # (v21) the exit test is not the first statement after the step
        lines.append(f"    {lst}.append({h} * 0.5)")
    if g.chance(0.3):  # (v21) a continue before the exit test
        lines += _continue(g, h)
    lines += [f"    if {test}:", "        break"]
    if g.chance(0.25):  # (v21) a continue after it
        lines += _continue(g, h)
    elif g.chance(0.3):  # (v21) a second exit test, maybe after more of the body
        if g.chance(0.5):
            lines.append(f"    {h} = {h} * 0.9 - 0.05")
        second = g.choice([f"len({lst}) >= {g.choice(['1', '3', 'n % 4'])}",
                           f"tf.reduce_min({h}) < -1.0", g.pcond(),
                           f"tf.reduce_mean({h}) > 2.0 or flag"])
        lines += [f"    if {second}:", "        break"]
    tail = g.choice([
        [f"    {lst}.append({h})"],
        [f"    {lst}.append(int({read}))" if read else f"    {lst}.append({h} * 2.0)",
         f"    {h} = {h} - 0.1"],
        [f"    acc = acc + {h} * 0.1"],
        ["    k = k + 1"],  # a Python value the rest changes: stays unrolled
        [f"    print('kept', {i})"],
        [f"    s.hist.append(len({lst}))"],
        [f"    {lst}.append({h})", f"    x2 = tf.expand_dims([{read}], 0)" if read
         else "    pass"],
    ])
    lines += tail
    lines.append(g.choice([
        f"acc = acc + {h} * 0.5",
        f"s.hist.append(len({lst}))",
        f"out.append(len({lst}))",
        f"acc = acc + float(len({lst}))",
        f"s.total = s.total + float(len({lst}))",
        "pass",
    ]))
    return lines


def _compound(g, test: str, h: str, i: str, lst: str) -> str:
    """An exit test with `and`/`or`/`not`: Python parts that may have effects or raise
    only where Python evaluates them (short-circuit), tensor parts, lengths of grown lists."""
    other = g.choice([f"len({lst}) >= {g.choice(['0', '2', 'n % 4'])}",
                      f"tf.reduce_min({h}) < -0.5", g.pcond(), "flag",
                      f"s.hist.append({i})",  # (None: false; a heap write if reached)
                      f"xs[{g.choice(['0', '1', '3'])}] is None",  # (may raise IndexError)
                      f"float(tf.reduce_mean({h})) > 1.0"])
    return g.choice([f"{test} or {other}", f"{other} or {test}", f"{test} and {other}",
                     f"not ({test})", f"not {other} and {test}",
                     f"({test}) or not ({other} and {test})"])


def _continue(g, h: str) -> list[str]:
    test = g.choice([f"tf.reduce_max({h}) > {g.choice(['0.8', '2.0'])}", g.pcond(),
                     f"tf.reduce_sum({h}) < 0.0 or flag"])
    body = g.choice([[], [f"        {h} = {h} - 0.3"], ["        k = k + 1"]])
    return [f"    if {test}:"] + body + ["        continue"]


@rule(0.8)
def host_scalar_read(g):
    """A scalar's `.numpy()` used as numpy would (compared, converted, packed into a
    list for TF) or as something a graph cannot hold (arithmetic, a list kept, printed,
    a numpy call): janus keeps it in the graph only in the first case."""
    r = g.fresh("r")
    lines = [_read(g, r)]
    use = g.choice([
        [f"if {_read_test(g, r)}:", "    acc = acc * 2.0"],
        [f"k = k + int({r})" if g.chance(0.3) else f"acc = acc + float({r}) * 0.01"],
        [f"acc = acc + tf.cast(tf.reduce_sum(tf.constant([{r}])), acc.dtype)"],
        [f"s.hist.append({r})"],
        [f"out.append(int({r}) if {r} > 0 else -1)"],
        [f"print('read', {r})"],
        [f"acc = acc + float({r} + 1)"],
        [f"s.total = s.total + float(np.abs({r}))"],
        [f"s.last = {r}"],
        [f"out.append({r})"],
    ])
    return lines + use



@rule(0.8, max_depth=1)
def uncarried_names(g):
    """(v46) A loop that breaks on a tensor whose body binds names of every liveness class
    (janus/transform/control_flow.py's `fresh`: a name no iteration reads before binding
    it and nothing reads after the loop is not carried by the tf.while_loop): bound before
    read, bound only on some iterations, read before bound (carried), read only after the
    loop (its value at the exit test), read by a closure defined before the loop or by a
    lambda made in the previous iteration, or bound after the exit test."""
    i, h, w, u, v, z = (g.fresh(p) for p in ("ui", "uh", "uw", "uu", "uv", "uz"))
    lines = [f"{h} = acc", f"{v} = acc * 0.5", f"{u} = acc - 0.25"]
    closure = g.chance(0.25)
    if closure:  # (a closure read: the name is live everywhere)
        lines += [f"def peek{u}():", f"    return {u} * 2.0"]
    made = g.chance(0.2)
    if made:
        lines.append(f"late{u} = lambda: {h}")
    header = g.choice([f"for {i} in range({g.choice(['3', 'n % 5 + 1', 'len(xs) + 2'])}):",
                       f"for {i} in xs:", f"while {i} < {g.choice(['3', 'n + 1'])}:"])
    if header.startswith("while"):  # (a tensor counter the test reads: carried)
        lines += [f"{i} = tf.constant(0)", header, f"    {i} = {i} + 1"]
    else:
        lines.append(header)
    if g.chance(0.5):
        lines.append(f"    {w} = {h} * 0.5 + tf.cast(V0, {h}.dtype)")
    else:  # (bound on some iterations only: unbound afterwards where none did)
        lines += [f"    {w} = {h} * 0.5", f"    if {g.choice([g.pcond(), f'tf.reduce_max({h}) > 1.0'])}:",
                  f"        {w} = {w} + 1.0"]
    lines.append(f"    {h} = {h} + tf.cast({w}, {h}.dtype) * 0.1")
    lines.append(f"    {v} = {v} * 0.9 + {h} * 0.2")  # (read before bound: carried)
    if closure:
        lines.append(f"    {h} = {h} + peek{u}() * 0.01")
    if made:
        lines += [f"    {h} = {h} + late{u}() * 0.05", f"    late{u} = lambda: {w} * 3.0"]
    lines.append(f"    {u} = {h} - {g.choice(['1.0', '0.5'])}")
    test = g.choice([f"tf.reduce_max({h}) > {g.choice(['1.5', '3.0'])}",
                     f"tf.reduce_sum({u}) > 0.0", g.pcond()])
    lines += [f"    if {test}:", "        break"]
    if g.chance(0.5):
        lines.append(f"    {z} = {h} * 2.0 + {w}")
        lines.append(f"    {h} = {h} + {z} * 0.01")
    reader = g.choice([f"acc = acc + {u} * 0.1", f"acc = acc + {v}", f"acc = acc + {h}",
                       f"acc = acc + {w}",
                       f"out.append(float(tf.reduce_sum({h})))", "pass",
                       f"acc = acc + late{u}()" if made else "pass"])
    lines.append(reader)
    return lines


@rule(0.6, max_depth=1)
def nested_unbound(g):
    """(v46) A name only a block nested in a loop body binds (a branch on a Python or
    tensor test, an inner loop over `xs` that may run no iteration), read after that
    block inside the outer loop, after the outer loop, or printed: Python raises
    UnboundLocalError where no path bound it (F135; the first read of the call ends it),
    NameError where a nested def of the user's reads it."""
    i, j, z, h = g.fresh("ni"), g.fresh("nj"), g.fresh("nz"), g.fresh("nh")
    outer = g.choice([f"for {i} in range({g.choice(['2', 'n % 3 + 1'])}):",
                      f"for {i} in xs[:2]:"])
    inner = g.choice([
        [f"    if {g.choice([g.pcond(), g.tcond(), 'flag'])}:", f"        {z} = {h} * 0.5"],
        [f"    for {j} in xs:", f"        {z} = {h} + {j} * 0.1"],
        [f"    for {j} in range(n % 2):", f"        {z} = {h} - 1.0"],
        [f"    if {g.pcond()}:", f"        for {j} in xs[1:]:", f"            {z} = {j} * 2.0"],
    ])
    read = g.choice(["inside", "after", "print", "maybe", "closure"])
    lines = [f"{h} = acc"]
    if read == "closure":  # (a free variable of the user's nested def: NameError there)
        lines += [f"def peek{z}():", f"    return {z} * 1.0"]
    lines += [outer] + inner
    if read == "inside":
        lines.append(f"    {h} = {h} + {z}")
    elif read == "closure":
        lines.append(f"    {h} = {h} + peek{z}()")
    elif read == "print":
        lines.append(f"    s.hist.append(repr(float(tf.reduce_sum({z}))))")
    elif read == "maybe":
        lines += [f"    if {g.pcond()}:", f"        {h} = {h} + {z} * 0.5"]
    else:
        lines.append(f"    {h} = {h} * 0.9")
    if read in ("after", "maybe"):
        lines.append(f"acc = acc + {z}")
    lines.append(f"acc = acc + {h} * 0.1")
    return lines
