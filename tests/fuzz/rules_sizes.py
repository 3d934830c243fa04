"""Generator rules (v58, v59): sizes that vary between calls, and rows gathered in loops.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_TABLE = '''
import keras

G_TABLE = tf.Variable(np.linspace(-1.0, 1.0, 15).reshape(5, 3).astype(np.float32))
G_IDS = tf.constant([1, 3, 1, 4, 0, 1, 2, 3])
G_OPT = keras.optimizers.Adam(0.1)
G_OPT2 = keras.optimizers.RMSprop(0.05)
'''

_LOOPS = [("for {t} in range(n):", "G_IDS[{t}]"),
          ("for {t} in range(len(xs)):", "G_IDS[{t} + 1]"),
          ("for {t} in range(x.shape[0]):", "G_IDS[{t}]"),
          ("for {t} in range(1, n + 2):", "G_IDS[{t}]"),
          ("for {t}, {a} in enumerate(xs):",
           "tf.cast(tf.reduce_sum({a}) > 0, tf.int32) + {t}"),
          ("for {a} in xs:", "tf.cast(tf.reduce_max({a}) > 0.3, tf.int32) * 2 + 1")]
_LOOKUPS = ["tf.gather(G_TABLE, {i})", "tf.nn.embedding_lookup(G_TABLE, {i})",
            "G_TABLE[{i}]", "tf.gather(G_TABLE, [{i}, 2])[0]"]
_UPDATES = [["G_OPT.apply_gradients([({g}, G_TABLE)])"],
            ["G_OPT2.apply_gradients([({g}, G_TABLE)])"],
            ["if isinstance({g}, tf.IndexedSlices):",
             "    G_TABLE.scatter_sub(tf.IndexedSlices(0.1 * {g}.values ** 2, {g}.indices))",
             "else:",
             "    G_TABLE.assign_sub(0.1 * {g} ** 2)"],
            ["G_TABLE.assign_sub(0.05 * tf.convert_to_tensor({g}))"]]


@rule(0.5, max_depth=1)
def sparse_lookup(g):
    """(v58) Rows of a variable gathered inside a loop (an embedding lookup per item or
    time step) under a tape, then an update that treats the gradient's rows apart (Adam,
    RMSprop, a squared IndexedSlices): eagerly the gradient is IndexedSlices, a row per
    lookup; TF's while-loop gradient one dense tensor (janus/graphgen/traced_gradients.py:
    the weights differed after a step)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _TABLE)
    tape, total, loss, grad, t, a = (g.fresh(p) for p in ("stp", "stot", "sloss", "sgrad",
                                                           "st", "sa"))
    loop, index = g.choice(_LOOPS)
    lookup = g.choice(_LOOKUPS).format(i=index.format(t=t, a=a))
    lines = [f"with tf.GradientTape() as {tape}:",
             f"    {total} = tf.zeros([3])",
             "    " + loop.format(t=t, a=a),
             f"        {total} = {total} * 0.9 + {lookup}",
             f"    {loss} = tf.reduce_sum(tf.square({total}))",
             f"{grad} = {tape}.gradient({loss}, G_TABLE)",
             f"s.hist.append(isinstance({grad}, tf.IndexedSlices))",
             f"if {grad} is not None:"]
    lines += ["    " + line.format(g=grad) for line in g.choice(_UPDATES)]
    return lines + [f"acc = acc + tf.cast({loss}, acc.dtype) * 0.01"]


_COUNTS = ["x.shape[0]", "n", "len(xs)", "n + 1", "x.shape[-1]", "int(x.shape[0])"]


@rule(0.6, max_depth=1)
def varying_size(g):
    """(v59; v61: slices of the range) A size that varies between calls read as a Python
    int: a dimension of `x` (`x.shape[0]` changes with the call's shape), `n`, `len(xs)`;
    looped over with `range` (a tf.while_loop now, graphgen/dynamic_sizes.py), with a
    start and a step, sliced (`range(n)[1:]`), a
    tensor `break`, a new list bound each step (an RNN cell's state), Python ints the
    loop counts; used in arithmetic, shapes, `len(range(...))`, unpacking `x.shape`, or
    decided on in Python (a graph per size then)."""
    t, st, b = g.fresh("zt"), g.fresh("zst"), g.fresh("zb")
    count = g.choice(_COUNTS)
    kind = g.rng.randint(0, 8)
    if kind == 0:
        return [f"for {t} in range(x.shape[0]):",
                f"    acc = acc * 0.5 + x[{t}]"]
    if kind == 1:
        return [f"{st} = [acc]",
                f"for {t} in range({count}):",
                f"    {st} = [{st}[0] * 0.9 + tf.cast({t}, acc.dtype) * 0.1]",
                f"acc = {st}[0]"]
    if kind == 2:
        return [f"acc = acc + tf.cast(len(range({count})), acc.dtype)",
                "acc = acc / float(int(x.shape[0]) + 1)"]
    if kind == 3:
        return [f"{b}, *_ = x.shape",
                f"acc = acc + tf.reduce_sum(tf.ones([{b}, 2], acc.dtype)) * 0.1"]
    if kind == 4:
        ranged = g.choice([f"range(1, {count} + 1, 2)", f"range({count})[1:]",
                           f"range({count} + 2)[::2]"])
        return [f"for {t} in {ranged}:",
                f"    k += {t}",
                "    acc = acc * 0.8"]
    if kind == 5:
        return ["if x.shape[0] > 2:",
                "    acc = acc * 2.0",
                "out.append(x.shape[0])"]
    if kind == 6:
        return [f"for {t} in range({count}):",
                "    if tf.reduce_sum(acc) > 3.0:",
                "        break",
                "    acc = acc * 0.9 + 0.2"]
    return [f"for {t} in range({count}):",
            f"    acc = acc + tf.cast(x.shape[0] * {t}, acc.dtype) * 0.01",
            "    s.count += 1"]
