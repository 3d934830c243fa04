"""Generator rules (v47) for the checks a bounded loop makes after it
(janus/graphgen/deferred_checks.py): a loop that breaks on a tensor (one tf.while_loop)
computing with Python numbers janus feeds, where a check fails in an iteration that
depends on `n` (a float leaving the fast range check's range, a zero divisor, an int past
int64), the loop's effects (a list it grows, the heap) read after it; and dense layers
whose outputs are kept bit for bit (`dense_bits`: janus runs its graphs unfused).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

# (`n` is 0-4: the checks hold for n < 4 and fail in a middle iteration for n == 4)
_STARTS = {  # kind: (start values, steps `{v} = ...` of the iteration `{i}`)
    "float": (["G_SCALE * (k + 1)", "float(n) + 0.5", "1.0", "2.0 ** -400 * (n + 1)"],
              ["{v} * 2.0 ** (-150 if n == 4 else -20) + {i}",
               "{v} * 2.0 ** (-150 if n == 4 else -20)", "{v} * 2.0 ** (150 if n == 4 else 20)",
               "{v} / ({pole} - {i})", "{v} * 0.5 - {i} * (1e-310 if n == 4 else 0.25)",
               "({v} + 1.0) * 0.75", "{v} * 1e-3 * (4 - n)"]),
    "int": (["n + 2", "k + 1", "(n + 1) * 10 ** 15"],
            ["{v} * 2 ** (21 if n == 4 else 1) + {i}", "{v} + {i} * 2 ** (62 if n == 4 else 9)",
             "{v} // ({ipole} - {i})", "{v} % ({ipole} - {i}) + {v}"]),
}


@rule(0.8, max_depth=1)
def deferred_checks(g):
    """`for` over a range whose only way out is a tensor test (maybe an `or` of it and
    scalar comparisons, kept as a value first), a Python number stepped in each
    iteration (kept as a heap attribute or a local), maybe a `while` on a tensor inside (a
    loop that may not end by itself: the checks stay in every iteration), a list grown
    from it; code after the loop reads the number and the list."""
    i, v, h, lst = g.fresh("di"), g.fresh("dv"), g.fresh("dh"), g.fresh("dl")
    kind = g.choice(["float", "float", "int"])
    starts, steps = _STARTS[kind]
    step = g.choice(steps).format(
        v=v, i=i, pole=g.choice(["(3.0 if n == 4 else 50.5)", "(2 if n == 4 else 50)"]),
        ipole=g.choice(["(3 if n == 4 else 50)", "(n * 0 + 11)"]))
    on_heap = g.chance(0.3)
    target = "s.total" if on_heap and kind == "float" else "s.count" if on_heap else v
    lines = [f"{lst} = []", f"{h} = acc", f"{target} = {g.choice(starts)}",
             f"for {i} in range({g.choice(['6', 'n + 3', '9'])}):",
             f"    {h} = {h} * 0.7 + tf.cast(V0, {h}.dtype)",
             f"    {target} = {step.replace(v, target)}"]
    if g.chance(0.3):
        w = g.fresh("dw")
        lines += [f"    {w} = tf.reduce_sum({h}) * 4.0",
                  f"    while {w} > 1.0:",
                  f"        {w} = {w} * 0.5",
                  f"    {h} = {h} + {w}"]
    lines.append(g.choice([f"    {lst}.append({h} * 0.5)", f"    {lst}.append({target})",
                           f"    {lst}.append(repr({target}))"]))
    test = f"tf.reduce_sum({h}) > {g.choice(['1.0', '2.5', '4.0'])}"
    if g.chance(0.4):  # (a value `or` of scalar comparisons: selects, no branch)
        done = g.fresh("dd")
        lines.append(f"    {done} = " + g.choice([
            f"{test} or abs({target}) > 1e6 or {i} >= 6",
            f"abs({target}) > 1e6 or {test}",
            f"{i} >= 5 or {target} < -1.0 or {test}"]))
        test = g.choice([done, f"bool({done})"])
    lines += [f"    if {test}:", "        break"]
    lines += [f"s.hist.append(repr({target}))", f"s.hist.append(len({lst}))"]
    if g.chance(0.5):
        lines.append(f"acc = acc + {h} * 0.5")
    return lines


@rule(0.5, max_depth=1)
def dense_bits(g):
    """(v47) A dense layer of the program's input (`matmul` and a bias added, or
    `tf.nn.bias_add`, maybe a tanh, sigmoid or relu after), its outputs' bits kept in
    `s.hist`: a graph must compute eager's bits (janus runs its graphs without Grappler's
    fusion of the three, which rounds otherwise: graphgen/calls.eager_kernels), maybe in
    a loop."""
    u, h = g.fresh("du"), g.fresh("dh")
    k = g.choice([4, 8, 16])
    m = g.choice([2, 8, 32])
    seed = g.rng.randint(0, 999)
    weights, bias = g.fresh("DENSE_W"), g.fresh("DENSE_B")  # (module constants: no host draws)
    g.helpers.append(f"{weights} = tf.constant(np.random.RandomState({seed}).normal("
                     f"size=({k}, {m})), tf.float32)\n"
                     f"{bias} = tf.constant(np.random.RandomState({seed + 1}).normal("
                     f"size={m}), tf.float32)\n")
    add = g.choice([f"tf.matmul({u}, {weights}) + {bias}",
                    f"tf.nn.bias_add(tf.matmul({u}, {weights}), {bias})",
                    f"{bias} + tf.matmul({u}, {weights})"])
    # (fused, oneDNN applies the activation its own way: tanh and sigmoid round otherwise)
    act = g.choice(["{}", "tf.tanh({})", "tf.tanh({})", "tf.sigmoid({})", "tf.nn.relu({})"])
    lines = [f"{u} = tf.reshape(tf.tile(tf.reshape(tf.cast(x, tf.float32), [-1])[:1], [{k}]), "
             f"[1, {k}]) * tf.constant(np.linspace(0.3, 1.7, {k}), tf.float32) + 0.1"]
    if g.chance(0.4):
        i = g.fresh("di")
        lines += [f"for {i} in range(n + 1):",
                  f"    {u} = {u} * 0.9 + 0.01",
                  f"    {h} = {act.format(add)}"]
    else:
        lines.append(f"{h} = {act.format(add)}")
    # (the low byte of each float's bits: tensors compare within a tolerance, these ints
    # differ by at least 1 where the floats differ in their last bit)
    lines.append(f"s.hist.append(tf.bitwise.bitwise_and(tf.bitcast({h}, tf.int32), 255))")
    return lines


@rule(0.4, max_depth=1)
def bias_gradient_bits(g):
    """(v48) The gradients of a convolution (or a dense layer) and the bias added to it,
    under a tape, their bits kept in `s.hist`: a graph must sum the bias's gradient as
    eager code does (oneDNN fuses the filter's and the bias's gradients in graphs:
    janus/graphgen/bias_gradients.py)."""
    img, tape, y, gk, gb = (g.fresh("bi"), g.fresh("btape"), g.fresh("by"), g.fresh("bgk"),
                            g.fresh("bgb"))
    seed = g.rng.randint(0, 999)
    kernel, bias = g.fresh("CONV_K"), g.fresh("CONV_B")  # (module constants, watched)
    conv = g.chance(0.7)
    channels = g.choice([4, 16])
    size = f"(3, 3, 3, {channels})" if conv else f"(48, {channels})"
    g.helpers.append(f"{kernel} = tf.constant(np.random.RandomState({seed}).normal("
                     f"size={size}) * 0.2, tf.float32)\n"
                     f"{bias} = tf.constant(np.random.RandomState({seed + 1}).normal("
                     f"size={channels}) * 0.1, tf.float32)\n")
    layer = f"tf.nn.conv2d({img}, {kernel}, 1, 'SAME')" if conv else \
        f"tf.matmul(tf.reshape({img}, [-1, 48]), {kernel})"
    return [f"{img} = tf.sin(tf.reshape(tf.range(192, dtype=tf.float32), [4, 4, 4, 3]) * "
            f"0.37 + tf.reduce_mean(tf.cast(x, tf.float32)))",
            f"with tf.GradientTape() as {tape}:",
            f"    {tape}.watch([{kernel}, {bias}])",
            f"    {y} = tf.nn.bias_add({layer}, {bias})",
            f"    {y} = tf.reduce_mean(tf.square(tf.nn.relu({y}) - 0.3))",
            f"{gk}, {gb} = {tape}.gradient({y}, [{kernel}, {bias}])",
            f"s.hist.append(tf.bitwise.bitwise_and(tf.bitcast({gb}, tf.int32), 255))",
            f"acc = acc + tf.cast(tf.reduce_sum({gk}) * 0.01, acc.dtype)"]


@rule(0.4, max_depth=1)
def division_bits(g):
    """(v48) A tensor divided by a constant Grappler could fold (a literal, a count, a
    shape's size) and a mean's gradient (a division by the count), their bits kept in
    `s.hist`: constant folding made `x / c` a product with `1 / c` (F143)."""
    xf, tape, q, gr = g.fresh("qx"), g.fresh("qtape"), g.fresh("q"), g.fresh("qg")
    divisor = g.choice(["5.0", "3.0", "7.0", "float(n + 3)", f"tf.cast(tf.size({xf}), tf.float32)",
                        "tf.constant(11.0)", "(1.0 + 2.0) * 3.0"])
    return [f"{xf} = tf.sin(tf.reshape(tf.cast(x, tf.float32), [-1]) * 1.7 + 0.3)",
            f"with tf.GradientTape() as {tape}:",
            f"    {tape}.watch({xf})",
            f"    {q} = tf.reduce_mean({xf} * {xf}) / {divisor} + {xf} / {divisor}",
            f"{gr} = {tape}.gradient({q}, {xf})",
            f"s.hist.append(tf.bitwise.bitwise_and(tf.bitcast({q}, tf.int32), 255))",
            f"s.hist.append(tf.bitwise.bitwise_and(tf.bitcast({gr}, tf.int32), 255))"]
