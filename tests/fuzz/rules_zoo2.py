"""Generator rules (v70) from the zoo's second round (tests/fuzz/zoo p42, p59-p64) and
what the fuzz found with them: a graph per subset of experts, a user's container whose
methods Python calls implicitly, a Keras layer's lists changed by append/extend/`+=`,
`if not <tensor>:`, counters a closure rebinds with `nonlocal`.

Registered in `rules.RULES` on import (the generator imports this module last).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper


@rule(0.5, max_depth=1)
def routed_experts(g):
    """(v70) A Python loop over a few weights under a tape, each used only when a tensor
    test on the call's values says so (`if count == 0: continue`: an expert no token
    picked, zoo p42), gradients filtered by `is not None`: the tests stay per outcome (a
    None gradient is not a graph's zeros), a graph per subset, each call finding its
    subset's graph among them (janus gave up after a few subsets)."""
    xf, ws, tape, tot, grads = (g.fresh(p) for p in ("xf", "ws", "rt", "tot", "grs"))
    e, w = g.fresh("e"), g.fresh("w")
    cut = g.choice(["{e} * 0.5 - 0.5", "0.25 * {e}", "{e} - 1.0"]).format(e=e)
    test = g.choice([f"tf.reduce_sum(tf.cast({xf} > {cut}, tf.float32)) == 0",
                     f"tf.reduce_max({xf}) < {cut}"])
    lines = [f"{xf} = tf.reshape(tf.cast(x, tf.float32), [-1])",
             f"{ws} = [{xf} * 0.0 + float({e} + 1) for {e} in range({g.choice([2, 3, 4])})]",
             f"with tf.GradientTape() as {tape}:",
             f"    {tape}.watch({ws})",
             f"    {tot} = tf.zeros([])",
             f"    for {e}, {w} in enumerate({ws}):",
             f"        if {test}:",
             "            continue",
             f"        {tot} = {tot} + tf.reduce_sum({w} * {xf})",
             f"{grads} = {tape}.gradient({tot}, {ws})",
             f"acc = acc + tf.cast({tot}, acc.dtype) * 0.01"]
    if g.chance(0.6):
        lines.append(f"k = k + sum(1 for gr in {grads} if gr is None)")
    else:
        lines.append(f"acc = acc + tf.cast(tf.add_n([tf.reduce_sum(gr) for gr in {grads} "
                     "if gr is not None] + [tf.zeros([])]), acc.dtype)")
    return lines


_BAG = '''class Bag:
    """A container of the user's: Python calls its methods implicitly."""

    def __init__(self):
        self.items = []
        self.count = 0

    def __len__(self):
        return len(self.items)

    def __bool__(self):
        return self.count % 3 != 1

    def __iter__(self):
        return iter(self.items[-3:])

    def __getitem__(self, i):
        return self.items[i]

    def __contains__(self, n):
        return n < self.count

    def __add__(self, other):
        return other + 0.5 * self.count

    def __str__(self):
        return f"Bag({self.count})"


BAG = Bag()
'''


@rule(0.5, max_depth=2)
def implicit_methods(g):
    """(v70) A user container's methods Python calls implicitly (`len(bag)`, `if bag:`,
    `bag[-1]`, `for v in bag`, `n in bag`, `bag + acc`, `str(bag)`) after the call grew
    it: they ran unconverted during janus's trace and the graph kept what they read then
    (zoo p60's replay buffer; graphgen/implicit_calls.py)."""
    _helper(g, _BAG)
    grow = g.choice(["BAG.items.append(tf.reduce_sum(acc))", "BAG.count += 1",
                     "BAG.items.append(acc * 0.5)"])
    read = g.choice(["acc = acc + len(BAG)", "if BAG:\n    acc = acc * 0.5",
                     "acc = acc + tf.cast(len(BAG) > n, acc.dtype)",
                     "k = k + (1 if n in BAG else 0)", "acc = BAG + acc",
                     "out.append(str(BAG))", "acc = acc + tf.reduce_sum(BAG[-1])",
                     "acc = acc + sum(tf.reduce_sum(v) for v in BAG)"])
    lines = [grow, "BAG.count += 1"] if "count" not in grow else [grow]
    if "BAG[" in read or "in BAG)" in read and "for" in read:
        lines.insert(0, "BAG.items.append(tf.reduce_sum(acc))")
    return lines + read.split("\n")


@rule(0.5, max_depth=2)
def tracked_log(g):
    """(v70) A Keras layer's list attribute (a TrackedList) given dicts, tuples and lists
    by `append`, `extend` and `+=`: Keras's `extend` wraps a dict in a TrackedDict, its
    `append` does not; janus wrote appended items back with one `extend` (zoo p64, F163);
    a list or dict holding a layer changed in place (the trace changed it, then refused:
    F164)."""
    from tests.fuzz.rules_keras import _USER_LAYERS
    _helper(g, _USER_LAYERS)
    item = g.choice(['{"y": tf.reduce_sum(acc)}', "(tf.reduce_sum(acc), k)",
                     "[tf.reduce_max(acc)]", "{'n': n, 'v': acc * 0.5}"])
    grow = g.choice([f"ULAYER.seen.append({item})", f"ULAYER.seen.extend([{item}])",
                     f"ULAYER.seen.extend([{item}, {{'k': k}}])", f"ULAYER.seen += [{item}]"])
    lines = [grow]
    if g.chance(0.25):  # (a list holding a layer: janus cannot copy it; F164)
        _helper(g, _HOLDER)
        lines.append(g.choice(["HOLDER.parts += [n]", "HOLDER.parts.append(k)",
                               "HOLDER.table['n%d' % n] = n"]))
    if g.chance(0.3):
        lines.append("k = k + len(ULAYER.seen) % 3")
    return lines


_HOLDER = '''HOLDER = keras.layers.Layer()
HOLDER.parts = [keras.layers.Dense(1)]
HOLDER.table = {"dense": keras.layers.Dense(1)}
'''


@rule(0.6, max_depth=2)
def negated_test(g):
    """(v70) `if not <tensor test>:` (`if not tf.math.is_finite(loss): raise ...`): the
    `not` asked a symbolic tensor's truth and janus ran the function eagerly for good;
    the test now runs with its branches swapped (transform/control_flow.py)."""
    if g.chance(0.4):
        return ["if not tf.math.is_finite(tf.reduce_sum(acc)):",
                "    raise ValueError('non-finite')"]
    lines = [f"if not {g.tcond()}:", f"    acc = acc * {g.choice(['0.5', '-1.0', '2.0'])}"]
    if g.chance(0.5):
        lines += ["else:", f"    k = k + {g.choice(['1', 'n'])}"]
    return lines


_COUNTER = '''def make_counter():
    count, total = 0, 0.0

    def bump(t, by=1):
        nonlocal count, total
        count += by
        total = total + 0.5 * by
        return t * 0.5 + total

    return bump, lambda: (count, total)


BUMP, BUMPED = make_counter()
'''


@rule(0.5, max_depth=2)
def counter_closure(g):
    """(v70) A closure made by a factory at module level that rebinds its counters with
    `nonlocal` (a step built by `make_train_step(...)`, zoo p63): janus refused `nonlocal`
    and ran the function eagerly; its stores are kept in the trace's ledger now and
    written to the cells after the graph ran (fallback/heap.py `setcell`)."""
    _helper(g, _COUNTER)
    by = g.choice(["1", "n", "k + 1", "2"])
    lines = [f"acc = BUMP(acc, {by})"]
    if g.chance(0.5):
        lines.append(g.choice(["k = k + BUMPED()[0] % 3", "out.append(BUMPED()[1])",
                               "acc = acc + BUMPED()[1]"]))
    return lines
