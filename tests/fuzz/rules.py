"""The generator's rules: one construct each, drawn by weight.

A rule is a function `(g: Gen) -> list[str] | None` registered with `@rule(weight)`;
it returns the lines of one statement (nested blocks come from `g.block()`), or None
when it does not apply here (then another rule is drawn). Module-level pieces go to
`g.helpers` (defs) and `g.methods` (methods of `State`); tensor functions usable in
expressions go to `g.tensor_fns`. In scope in `f`: tensors `x`, `acc` (x's shape and
dtype), ints `k`, `n`, the list `out`, the bool `flag`, the list of tensors `xs`, the
state object `s` (count, total, hist, d, h), globals G_LIST, G_DICT, G_SCALE, G_COUNT,
ENV and the variables V0, V1 (float32 scalars).
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from tests.fuzz.generator import Gen, indent


@dataclasses.dataclass(frozen=True)
class Rule:
    name: str
    weight: float
    fn: Callable
    max_depth: int = 3
    eager: bool = False  # janus runs the whole function eagerly when it meets this


RULES: list[Rule] = []


def rule(weight: float = 1.0, max_depth: int = 3, eager: bool = False):
    def register(fn):
        RULES.append(Rule(fn.__name__, weight, fn, max_depth, eager))
        return fn
    return register


def statement(g: Gen) -> list[str]:
    """One statement drawn from the registry (applicable rules only; in a program meant
    to run as graphs, none of the constructs that make janus run it eagerly)."""
    for _ in range(20):
        candidates = [r for r in RULES if g.depth <= r.max_depth and
                      not (r.eager and g.graphable)]
        if not candidates:
            break
        r = g.rng.choices(candidates, weights=[c.weight for c in candidates])[0]
        lines = r.fn(g)
        if lines is not None:
            g.used.append(r.name)
            return lines
    return ["pass"]


# -- plain assignments --------------------------------------------------------------------

@rule(3.0)
def assign_tensor(g):
    return [f"acc = {g.texpr()}"]


@rule(1.5)
def new_tensor_local(g):
    name = g.fresh("t")
    line = f"{name} = {g.texpr()}"
    g.bind("tensor", name)
    return [line]


@rule(1.5)
def int_update(g):
    return [g.choice([f"k = k + {g.int_expr()}", "k += 1", "k = (k * 3 + n) % 7",
                      f"k = max(k - 1, {g.rng.randint(0, 2)})"])]


@rule(1.0, eager=True)
def numpy_value(g):
    """`.numpy()` on a tensor; the Python float flows on."""
    name = g.fresh("z")
    return [f"{name} = float(tf.reduce_sum({g.tensor()}).numpy())",
            f"s.total = s.total + {name}",
            f"acc = acc + {name} * 0.01"]


# -- control flow --------------------------------------------------------------------------

@rule(2.0, max_depth=2)
def if_else(g):
    lines = [f"if {g.cond()}:"] + indent(g.block())
    for _ in range(g.rng.randint(0, 2)):
        lines += [f"elif {g.cond()}:"] + indent(g.block())
    if g.chance(0.6):
        lines += ["else:"] + indent(g.block())
    return lines


@rule(1.5, max_depth=2)
def while_loop(g):
    """A bounded while; its test may mix a Python and a tensor condition."""
    j = g.fresh("j")
    bound = g.rng.randint(1, 3)
    test = f"{j} < {bound}"
    if g.chance(0.5):
        test += f" and {g.tcond()}"
    elif g.chance(0.3):
        test += f" and {g.pcond()}"
    g.loop_depth += 1
    try:
        body = [f"{j} += 1"] + g.block()
        if g.chance(0.4):
            body += [f"if {g.cond()}:", f"    {g.choice(['break', 'continue'])}"]
            body += g.block(1)
    finally:
        g.loop_depth -= 1
    lines = [f"{j} = 0", f"while {test}:"] + indent(body)
    if g.chance(0.3):
        lines += ["else:"] + indent(g.block(1))
    return lines


@rule(2.0, max_depth=2)
def for_loop(g):
    """for over range / the list argument / enumerate / a dict, with break/continue/else."""
    kind = g.rng.randint(0, 3)
    # (an inner loop over the same list must not unmark it: the outer loop still iterates
    # it, and appending to it there would never end, in plain Python too)
    was_iterating = set(g.iterating)
    g.scopes.append({})
    g.loop_depth += 1
    try:
        if kind == 0:
            i = g.fresh("i")
            head = f"for {i} in range({g.choice(['n % 3', '2', 'len(xs)', 'k % 3 + 1'])}):"
            g.bind("int", i)
        elif kind == 1:
            item = g.fresh("item")
            head = f"for {item} in xs:"
            g.bind("tensor", item)
            g.iterating.add("xs")
        elif kind == 2:
            i, item = g.fresh("i"), g.fresh("item")
            head = f"for {i}, {item} in enumerate(xs):"
            g.bind("int", i)
            g.bind("tensor", item)
            g.iterating.add("xs")
        else:
            key = g.fresh("key")
            head = f"for {key} in sorted(s.d):"
            g.iterating.add("s.d")
        body = g.block()
        if g.chance(0.4):
            body += [f"if {g.cond()}:", f"    {g.choice(['break', 'continue'])}"]
            body += g.block(1)
    finally:
        g.loop_depth -= 1
        g.scopes.pop()
        g.iterating = was_iterating
    lines = [head] + indent(body)
    if g.chance(0.25):
        lines += ["else:"] + indent(g.block(1))
    return lines


@rule(0.8)
def early_return(g):
    if g.depth == 0:
        return None
    return [f"if {g.cond()}:", f"    return {g.choice(['acc', '(acc, k)', 'acc * 2.0'])}"]


# -- heap: attributes, lists, dicts, globals ---------------------------------------------

@rule(1.5)
def list_mutation(g):
    options = ["out.append(acc)", "out.append(k)", "s.hist.append(k)",
               "s.hist.append(tf.reduce_sum(acc))", "out += [acc * 0.5]",
               "if out:\n    out.pop()"]
    if "xs" not in g.iterating:
        options += ["xs.append(acc)", "if len(xs) > 1:\n    xs.pop()"]
    return g.choice(options).split("\n")


@rule(1.2)
def dict_mutation(g):
    options = ["s.d['a'] = s.d.get('a', 0) + 1", f"s.d['k{g.rng.randint(0, 2)}'] = k",
               "G_DICT['c'] = G_DICT.get('c', 0) + 1"]
    if "s.d" not in g.iterating:
        options += ["s.d['t'] = acc", "if 'a' in s.d:\n    del s.d['a']"]
    return g.choice(options).split("\n")


@rule(1.2)
def attribute_update(g):
    return [g.choice(["s.count += 1", "s.h = tf.reduce_sum(acc)",
                      "s.total = s.total + 0.5", "s.count = s.count + len(xs)",
                      "acc = acc + tf.cast(s.h, acc.dtype)"])]


@rule(1.0)
def global_update(g):
    """A module global mutated, or rebound under `global` (v67: in programs meant to run
    as graphs too: transform/global_stores.py), read back in the same call (v68: by a
    callee too)."""
    if g.chance(0.5):
        name = g.choice(["G_COUNT", "G_COUNT", "G_LIST"])
        g.globals_declared.add(name)
        if name == "G_LIST":
            return [g.choice(["G_LIST += [k]", "G_LIST = G_LIST + [n]",
                              "G_LIST = G_LIST[-3:] + [len(G_LIST)]"])]
        if g.chance(0.3):  # (v68: a callee reads the global stored earlier in the call)
            from tests.fuzz.rules_more9 import _helper
            _helper(g, "def count_scaled(v):\n    return v * (G_COUNT % 7) * 0.1\n")
            return ["G_COUNT += n + 1", "acc = acc + count_scaled(acc)"]
        return g.choice([["G_COUNT += 1"], ["G_COUNT = G_COUNT + k"],
                         ["G_COUNT = G_COUNT * 2 if flag else G_COUNT - 1"],
                         ["G_COUNT += n", "acc = acc + G_COUNT * 0.1"],
                         ["if tf.reduce_sum(acc) > 0.0:", "    G_COUNT += 1"]])
    return [g.choice(["G_LIST.append(k)", "G_LIST.append(n)",
                      "acc = acc * G_SCALE + len(G_LIST) * 0.0"])]


@rule(1.0)
def print_stmt(g):
    options = [f"print('p', k, n, {g.int_expr()})", "print('acc', acc)",
               "print(len(out), flag)"]
    if not g.graphable:
        options += ["print('np', acc.numpy())", "print('sum', float(tf.reduce_sum(acc)))"]
    return [g.choice(options)]


@rule(1.0)
def variable_update(g):
    return [g.choice([
        "V0.assign_add(tf.cast(tf.reduce_mean(acc), tf.float32) * 0.1)",
        "V1.assign(tf.cast(tf.reduce_sum(acc), tf.float32))",
        "V0.assign(V0 * 0.9)",
        "acc = acc + tf.cast(V1, acc.dtype)",
    ])]


@rule(1.0)
def raise_stmt(g):
    """Raising on an input, heap or tensor condition."""
    return g.choice([
        ["if len(xs) == 1:", "    raise ValueError('one item')"],
        [f"if n > {g.rng.randint(2, 5)}:", "    raise ValueError(f'n too big: {n}')"],
        [f"if s.count > {g.rng.randint(2, 6)}:",
         "    raise RuntimeError('count ' + str(s.count))"],
        [f"if {g.tcond()}:", "    raise ValueError('tensor condition')"],
        [f"if len(out) > {g.rng.randint(1, 4)}:", "    raise IndexError('out too long')"],
    ])


@rule(0.8, max_depth=1)
def mixed_loop_raise(g):
    """issue 9, #2: a raise on the list length inside a loop whose test mixes a Python and
    a tensor condition."""
    j = g.fresh("j")
    return [f"{j} = 0",
            f"while {j} < 2 and tf.reduce_mean(acc) > -0.5:",
            f"    {j} += 1",
            f"    if len(xs) == {g.rng.randint(0, 2)}:",
            "        raise ValueError('list length')",
            f"    acc = acc * 0.5 + {g.texpr()}"]


@rule(0.8)
def python_float(g):
    """A Python float local updated in a loop (janus may feed it as a scalar)."""
    lr = g.fresh("lr")
    return [f"{lr} = {g.choice(['0.1', 's.total', 'float(n) * 0.5'])}",
            f"for {g.fresh('i')} in range({g.choice(['2', 'n % 3', 'len(xs)'])}):",
            f"    {lr} = {lr} * 0.5 + 0.01",
            f"acc = acc * {lr}"]


@rule(0.8)
def comprehension(g):
    """(v57: with names of the function read inside: `k`, `acc`, `s.total`; a dict
    comprehension; a generator in a call) Comprehensions, whose variables are their own:
    after a graph break they are in a segment (transform/liveness.py)."""
    return [g.choice([
        "acc = acc + sum([t * 0.5 for t in xs], tf.zeros_like(acc))",
        "acc = tf.add_n([acc] + [t for t in xs if t.shape == acc.shape])",
        "out = out + [t * 2.0 for t in xs]",
        "acc = acc + (tf.stack(xs)[0] if xs else 0.0)",
        "acc = acc + sum([t * float(k + 1) for t in xs if t.shape == acc.shape], "
        "tf.zeros_like(acc))",
        "acc = acc * 0.5 + sum((tf.reduce_sum(t) * s.total for t in xs), 0.0)",
        "k = k + len({i: t for i, t in enumerate(xs) if i != k})",
        "out = out + [[u * 0.5 for u in (t, acc)][0] for t in xs]",
    ])]


@rule(0.6, eager=True)
def try_except(g):
    return ["try:"] + indent(g.block(1)) + ["    if len(xs) > 2:",
                                            "        raise KeyError('many')",
                                            "except KeyError as e:",
                                            "    print('caught', e)",
                                            "    k += 1"]


@rule(0.6)
def zip_pairs(g):
    a, b = g.fresh("a"), g.fresh("b")
    return [f"for {a}, {b} in zip(xs, xs[1:]):", f"    acc = acc + {a} * 0.1 - {b} * 0.1"]


# -- functions: helpers, methods, closures, recursion ------------------------------------

@rule(1.2)
def helper_call(g):
    name = g.fresh("helper")
    c = g.rng.randint(0, 2)
    g.helpers.append(
        f"def {name}(a, m):\n"
        f"    if m > {c}:\n"
        f"        return tf.tanh(a) * 0.5\n"
        f"    b = a + 1.0\n"
        f"    return b * G_SCALE\n")
    if g.chance(0.3):
        return [f"acc = {name}(m={g.int_expr()}, a={g.texpr()})"]
    return [f"acc = {name}({g.texpr()}, {g.int_expr()})"]


@rule(1.0)
def recursion(g):
    """A module-level helper recursing on a Python int."""
    base, rec = g.fresh("base"), g.fresh("rec")
    g.helpers.append(f"def {base}(a):\n    return tf.tanh(a) * 0.9\n")
    g.helpers.append(f"def {rec}(a, m):\n"
                     f"    return {base}(a) if m <= 0 else {rec}(a * 0.8 + 0.1, m - 1)\n")
    return [f"acc = {rec}({g.texpr()}, {g.choice(['n % 3', '2', 'k % 3', 'len(xs)'])})"]


@rule(1.2)
def method_call(g):
    name = g.fresh("step")
    g.methods.append(
        f"    def {name}(self, t):\n"
        f"        self.count += 1\n"
        f"        self.hist.append(self.count)\n"
        f"        if self.count > {g.rng.randint(1, 4)}:\n"
        f"            self.total = self.total + 1.0\n"
        f"        return t * 0.9 + 0.1\n")
    g.tensor_fns.append(f"s.{name}")
    return [f"acc = s.{name}({g.texpr()})"]


@rule(1.2, max_depth=0)
def closure(g):
    """A nested def closing over the enclosing locals, then called (often in a loop)."""
    name = g.fresh("inner")
    lines = [f"def {name}(z):",
             f"    return z * 0.5 + {g.choice(['acc', 'x', 'acc * float(len(xs))'])}"]
    g.tensor_fns.append(name)
    if g.chance(0.6):
        item = g.fresh("item")
        lines += [f"for {item} in xs:", f"    acc = {name}({item})"]
    else:
        lines += [f"acc = {name}(acc)"]
    return lines


@rule(0.8, max_depth=0, eager=True)
def nonlocal_closure(g):
    name, cnt = g.fresh("bump"), g.fresh("cnt")
    lines = [f"{cnt} = 0",
             f"def {name}(t):",
             f"    nonlocal {cnt}",
             f"    {cnt} += 1",
             "    return t + 1.0",
             f"acc = {name}(acc)",
             f"for {g.fresh('i')} in range(n % 3):",
             f"    acc = {name}(acc) * 0.5",
             f"k = k + {cnt}"]
    return lines


# -- TF-specific: tapes, callbacks, generators ---------------------------------------------

@rule(1.0)
def gradient_tape(g):
    tape, y, grad = g.fresh("tape"), g.fresh("y"), g.fresh("g")
    return g.choice([
        [f"with tf.GradientTape() as {tape}:",
         f"    {tape}.watch(acc)",
         f"    {y} = tf.reduce_sum(tf.tanh(acc) * x)",
         f"{grad} = {tape}.gradient({y}, acc)",
         f"acc = acc + 0.1 * {grad}"],
        [f"with tf.GradientTape() as {tape}:",
         f"    {y} = tf.reduce_sum(tf.cast(acc, tf.float32) * V0)",
         f"{grad} = {tape}.gradient({y}, V0)",
         f"V0.assign_sub(0.01 * {grad})"],
    ])


@rule(0.6, eager=True)
def persistent_tape(g):
    """A persistent tape, a None gradient, clipping from `.numpy()` sums (issue 9, #3)."""
    tape, y1, y2, g1, gs, norm = (g.fresh(p) for p in ("tape", "y", "y", "g", "gs", "norm"))
    return [f"with tf.GradientTape(persistent=True) as {tape}:",
            f"    {tape}.watch(acc)",
            f"    {y1} = tf.reduce_sum(acc * acc)",
            f"    {y2} = tf.reduce_sum(tf.sin(acc))",
            f"{g1} = {tape}.gradient({y1}, acc)",
            f"{gs} = {tape}.gradient({y2}, [acc, x])",
            f"{norm} = 0.0",
            f"for gi in {gs}:",
            "    if gi is not None:",
            f"        {norm} += float(tf.reduce_sum(gi ** 2).numpy())",
            f"del {tape}",
            f"acc = acc + 0.01 * {g1}",
            f"s.total = s.total + {norm}"]


@rule(0.6)
def numpy_callback(g):
    """A function TF calls back (tf.numpy_function / tf.py_function) reading a global,
    or, nested, a local of `f` (issue 9, #4: callbacks must run as TF calls them)."""
    name = g.fresh("cb")
    if g.depth == 0 and g.chance(0.4):
        env = g.fresh("env")
        lines = [f"{env} = {g.choice(['ENV', 's.d', 'dict(ENV)'])}",
                 f"def {name}(a):",
                 f"    return (a * {env}.get('scale', 1.0) + len(xs)).astype(a.dtype)"]
        if g.chance(0.5):
            return lines + [f"acc = tf.numpy_function({name}, [acc], acc.dtype)",
                            "acc.set_shape(x.shape)"]
        lines[-1] = f"    return a * {env}.get('scale', 1.0) + len(xs)"
        return lines + [f"acc = tf.py_function({name}, [acc], acc.dtype)",
                        "acc.set_shape(x.shape)"]
    if g.chance(0.5):
        g.helpers.append(f"def {name}(a):\n    return (a * ENV['scale']).astype(a.dtype)\n")
        return [f"acc = tf.numpy_function({name}, [acc], acc.dtype)", "acc.set_shape(x.shape)"]
    g.helpers.append(f"def {name}(a):\n    return a * ENV['scale']\n")
    return [f"acc = tf.py_function({name}, [acc], acc.dtype)", "acc.set_shape(x.shape)"]


def _traced_callback(g, effect: str | None) -> list[str]:
    """`tf.map_fn` / `tf.scan` / `tf.foldl` / `tf.while_loop` / `tf.cond` with a user
    callback TF traces (a body, a branch), with or without a Python effect in it."""
    cb, flat = g.fresh("cb"), g.fresh("flat")
    body = [f"    {effect}"] if effect else []
    kind = g.choice(["map_fn", "scan", "foldl", "while_loop", "cond"])
    if kind == "map_fn":
        return [f"def {cb}(e):", *body, f"    return e * 0.5 + {g.choice(['1.0', 's.total', 'G_SCALE'])}",
                f"{flat} = tf.reshape(acc, [-1])",
                f"acc = tf.reshape(tf.map_fn({cb}, {flat}), tf.shape(acc))"]
    if kind in ("scan", "foldl"):
        lines = [f"def {cb}(a, e):", *body, "    return a * 0.5 + e",
                 f"{flat} = tf.reshape(acc, [-1])"]
        if kind == "scan":
            return lines + [f"acc = tf.reshape(tf.scan({cb}, {flat}), tf.shape(acc))"]
        return lines + [f"acc = acc + tf.foldl({cb}, {flat})"]
    if kind == "while_loop":
        i = g.fresh("i")
        return [f"def {cb}({i}, a):", *body, f"    return {i} + 1, a * 0.5 + 1.0",
                f"acc = tf.while_loop(lambda {i}, a: {i} < n % 3 + 1, {cb}, "
                f"(tf.constant(0), acc))[1]"]
    other = g.fresh("cb")
    return [f"def {cb}():", *body, "    return acc * 2.0",
            f"def {other}():", "    return acc - 1.0",
            f"acc = tf.cond(tf.reduce_sum(acc) > 0, {cb}, {other})"]


@rule(0.8, max_depth=1)
def traced_callback(g):
    """A callback TF traces inside janus's graph, free of Python effects: stays a graph."""
    return _traced_callback(g, None)


@rule(0.6, max_depth=1, eager=True)
def traced_callback_effect(g):
    """The same with a print or heap write: once per element / iteration / branch taken
    in Python, but once per trace in a graph (F10): janus runs the call eagerly."""
    return _traced_callback(g, g.choice(['print("cb")', "s.count += 1", "G_LIST.append(1)",
                                         "s.hist.append(len(s.hist))"]))


@rule(0.6, max_depth=1, eager=True)
def generator_loop(g):
    """A Python generator of batches, consumed by a for loop."""
    name, b = g.fresh("batches"), g.fresh("b")
    g.helpers.append(f"def {name}(items):\n    for it in items:\n        yield it * 1.0\n")
    return [f"for {b} in {name}(xs):", f"    acc = acc + {b}"]


# -- lists of objects with per-item Python numbers (issue 11: relaxation by role) --------

@rule(0.9)
def item_attributes(g):
    """A global list of objects whose per-item Python numbers differ across the items and
    change between calls (written at the end of each call), read as data, in branches,
    as list indices and through float(): janus may feed them by role (`ITEMS[*].w`) or
    keep them guarded, never compute something else."""
    cls, items, it, j = g.fresh("Item"), g.fresh("ITEMS"), g.fresh("it"), g.fresh("j")
    count = g.rng.randint(2, 4)
    g.helpers.append(f"class {cls}:\n"
                     f"    def __init__(self, w, c):\n"
                     f"        self.w = w\n"
                     f"        self.c = c\n")
    start = [g.rng.randint(0, 4) for _ in range(count)]
    g.helpers.append(f"{items} = [{', '.join(f'{cls}({w}, {w * 0.25})' for w in start)}]\n")
    uses = g.rng.sample(["data", "float_data", "branch", "index", "float", "tensor"],
                        g.rng.randint(1, 3))
    body = []
    for use in uses:
        if use == "data":
            body.append(f"    acc = acc + {it}.w * 0.1")
        elif use == "float_data":
            body.append(f"    acc = acc * (1.0 + {it}.c)")
        elif use == "branch":
            body += [f"    if {it}.w > {g.rng.randint(0, 3)}:",
                     "        acc = acc * 0.9",
                     "    else:",
                     "        acc = acc + 0.1"]
        elif use == "index":
            body.append(f"    acc = acc * (0.5, 1.0, 1.5, 2.0, 2.5)[{it}.w % 5]")
        elif use == "float":
            body.append(f"    acc = acc - float({it}.w) * 0.05")
        else:
            body.append(f"    acc = acc + tf.cast(tf.one_hot({it}.w % 5, 5)[0], acc.dtype)")
    lines = [f"for {it} in {items}:"] + body
    if g.chance(0.8):  # the items' numbers change between calls
        lines += [f"for {j}, {it} in enumerate({items}):",
                  f"    {it}.w = ({it}.w * 3 + {j} + {g.int_expr()}) % 5",
                  f"    {it}.c = {it}.c * 0.5 + 0.25"]
    return lines


# -- jitted methods, partials and bound methods as callbacks, dict state, one qualname
#    for several functions (generator v4) ---------------------------------------------

@rule(0.8)
def jit_method(g):
    """A State method the program decorates with `JIT` (janus.jit on the janus side),
    mutating self, called on `s` and on another instance (a jitted callee inside the
    jitted `f`, or a jitted entry point of its own when `f` runs eagerly)."""
    name = g.fresh("jm")
    g.methods.append(
        "    @JIT\n"
        f"    def {name}(self, t):\n"
        "        self.count += 1\n"
        "        self.hist.append(len(self.hist))\n"
        f"        if self.count > {g.rng.randint(1, 3)}:\n"
        "            self.total = self.total + 0.5\n"
        "            self.h = tf.reduce_sum(t)\n"
        "        return t * 0.9 + self.total * 0.1\n")
    g.tensor_fns.append(f"s.{name}")
    if g.chance(0.4):
        o = g.fresh("o")
        return [f"{o} = State()",
                f"acc = {o}.{name}({g.texpr()}) + s.{name}(acc) * 0.5",
                f"k = k + {o}.count"]
    return [f"acc = s.{name}({g.texpr()})"]


def _bound_callback(g, effect: str | None) -> list[str]:
    """A callback TF traces given as `functools.partial` (of a helper, a nested def or a
    bound method) or as a bound method reading `self`: `tf.map_fn(s.cb, flat)`."""
    cb, flat = g.fresh("pcb"), g.fresh("flat")
    how = g.choice(["helper", "nested", "method", "method_partial"])
    kind = g.choice(["map_fn", "vectorized_map", "scan", "foldl", "while_loop", "cond"])
    params, value, extra = {
        "map_fn": (["e"], "e * w + G_SCALE", "w"),
        "vectorized_map": (["e"], "e * w - 0.25", "w"),
        "scan": (["a", "e"], "a * w + e", "w"),
        "foldl": (["a", "e"], "a * w + e", "w"),
        "while_loop": (["i", "a"], "(i + 1, a * w + 1.0)", "w"),
        "cond": (["t"], "t * w + 1.0", "w"),
    }[kind]
    lines: list[str] = []
    if how in ("method", "method_partial"):
        # a bound method reads `self.total` for its factor; a partial of one gets it
        sig = ", ".join(["self"] + params + ([extra] if how == "method_partial" else []))
        body = [f"    def {cb}({sig}):"] + ([f"        {effect}"] if effect else [])
        if how == "method":
            body.append(f"        {extra} = self.total * 0.1 + 0.5")
        g.methods.append("\n".join(body + [f"        return {value}"]) + "\n")
        fn = f"s.{cb}" if how == "method" else \
            f"functools.partial(s.{cb}, {extra}={g.choice(['0.5', 'float(k % 2)', 'G_SCALE'])})"
    else:
        body = [f"    {effect}"] if effect else []
        define = [f"def {cb}({', '.join(params + [extra])}):", *body, f"    return {value}"]
        if how == "helper":
            g.helpers.append("\n".join(define) + "\n")
        else:  # a nested def closing over a local of f
            define[-1] = f"    return {value} + tf.reduce_sum(acc) * 0.0" if kind != "while_loop" \
                else f"    return (i + 1, a * w + 1.0 + tf.reduce_sum(acc) * 0.0)"
            lines += define
        fn = f"functools.partial({cb}, {extra}={g.choice(['0.5', 'float(n % 3)', 'G_SCALE'])})"
    if kind in ("map_fn", "vectorized_map", "scan"):
        return lines + [f"{flat} = tf.reshape(acc, [-1])",
                        f"acc = tf.reshape(tf.{kind}({fn}, {flat}), tf.shape(acc))"]
    if kind == "foldl":
        return lines + [f"{flat} = tf.reshape(acc, [-1])", f"acc = acc + tf.foldl({fn}, {flat})"]
    if kind == "while_loop":
        return lines + [f"acc = tf.while_loop(lambda i, a: i < n % 3 + 1, {fn}, "
                        "(tf.constant(0), acc))[1]"]
    return lines + [f"acc = tf.cond(tf.reduce_sum(acc) > 0, functools.partial({fn}, acc), "
                    "lambda: acc - 1.0)"]


@rule(0.7, max_depth=1)
def bound_callback(g):
    """functools.partial / bound methods handed to TF ops that trace them: graphs."""
    return _bound_callback(g, None)


@rule(0.4, max_depth=1, eager=True)
def bound_callback_effect(g):
    """The same with a heap write or print inside (janus must run the call eagerly)."""
    return _bound_callback(g, g.choice(['print("pcb")', "G_LIST.append(1)"]))


@rule(1.0, max_depth=2)
def dict_state_loop(g):
    """Dict-valued state (the state's dict, a global dict, a local dict) mutated in
    loops, on Python and tensor conditions, then read back."""
    i, d, key = g.fresh("i"), g.fresh("d"), g.fresh("key")
    kind = g.rng.randint(0, 4)
    if kind == 0:
        return [f"for {i} in range({g.choice(['n % 3 + 1', '2', 'len(xs)'])}):",
                f"    s.d['c'] = s.d.get('c', 0) + {i}",
                f"    if {g.cond()}:",
                "        s.d['t'] = acc * 0.5",
                "acc = acc + tf.cast(s.d.get('c', 0), acc.dtype) * 0.1"]
    if kind == 1:
        return [f"{d} = {{}}",
                f"for {i}, {key} in enumerate(xs):",
                f"    {d}[{i}] = {key} * 0.5",
                f"    {d}['n'] = {d}.get('n', 0) + 1",
                f"for {key} in sorted(k for k in {d} if k != 'n'):",
                f"    acc = acc + {d}[{key}]",
                f"k = k + {d}.get('n', 0)"]
    if kind == 2:
        j = g.fresh("j")
        return [f"{j} = 0",
                f"while {j} < 2 and {g.tcond()}:",
                f"    {j} += 1",
                f"    G_DICT['w'] = G_DICT.get('w', 0) + {j}",
                "    G_DICT.setdefault('l', []).append(k)",
                f"    acc = acc * 0.5 + {g.texpr()}"]
    if kind == 3:
        return [f"for {i} in range(n % 3):",
                f"    s.d.update({{'u': {i}, 'v': k}})",
                "    s.d.pop('a', None)",
                "if 'u' in s.d:",
                "    acc = acc + float(s.d['u'])"]
    return [f"for {key} in sorted(s.d):",
            f"    if {key}.startswith('k'):",
            f"        s.d[{key}] = s.d[{key}] * 2",
            f"    elif {key} == 'c' and {g.pcond()}:",
            f"        del s.d[{key}]"]


@rule(0.8, max_depth=1)
def same_qualname(g):
    """Several functions with one qualified name: closures of one factory (one code),
    JIT-decorated closures kept in globals (one cache key), same-named nested defs in
    two branches (two codes). Their profiles and graphs must never mix."""
    kind = g.rng.randint(0, 2)
    if kind == 0:
        mk = g.fresh("make")
        g.helpers.append(f"def {mk}(c):\n"
                         "    def scaled(a):\n"
                         "        if c > 1.0:\n"
                         "            return a * c\n"
                         "        return a - c\n"
                         "    return scaled\n")
        return [f"acc = {mk}({g.choice(['2.0', 'float(n)', 'G_SCALE'])})(acc) + "
                f"{mk}({g.choice(['0.5', 'float(k)', '1.0'])})({g.texpr()}) * 0.5"]
    if kind == 1:
        mk, ja, jb = g.fresh("makej"), g.fresh("JA"), g.fresh("JB")
        g.helpers.append(f"def {mk}(c):\n"
                         "    @JIT\n"
                         "    def step(a):\n"
                         "        for _ in range(2):\n"
                         "            if c > 1.0:\n"
                         "                a = a * 0.5 + c\n"
                         "            else:\n"
                         "                a = a - c\n"
                         "        return a\n"
                         "    return step\n\n\n"
                         f"{ja} = {mk}(2.0)\n"
                         f"{jb} = {mk}(0.5)\n")
        return [f"acc = {ja}({g.texpr()}) + {jb}(acc) * 0.5"]
    cb = g.fresh("same")
    return [f"if {g.cond()}:",
            f"    def {cb}(a):",
            "        return a * 2.0 + G_SCALE",
            "else:",
            f"    def {cb}(a):",
            "        for _ in range(2):",
            "            a = tf.tanh(a) + 0.5",
            "        return a",
            f"acc = {cb}({g.texpr()})"]


# -- graph breaks (issue 10): host statements between tensor stretches ------------------

_HOST_RNG = "HOST_RNG = np.random.default_rng(7)\n"


def _host_rng(g) -> str:
    if _HOST_RNG not in g.helpers:
        g.helpers.append(_HOST_RNG)
    return "HOST_RNG"


@rule(1.0, eager=True)
def graph_break(g):
    """Tensor work, then a statement janus cannot put in a graph (`.numpy()`, `float(t)`,
    host randomness, a host call with heap effects), then more tensor work reading it."""
    z, t = g.fresh("zb"), g.fresh("tb")
    host = g.choice([
        f"{z} = float(tf.reduce_mean({t}).numpy())",
        f"{z} = float({_host_rng(g)}.random()) + float(tf.reduce_sum({t}))",
        f"{z} = {_host_rng(g)}.choice([0.5, 1.0, 2.0], p=[0.2, 0.3, 0.5]) * "
        f"float(np.sum({t}.numpy()))",
        f"{z} = host_env(s, float(tf.reduce_max({t})))",
    ])
    if "host_env" in host and not any(h.startswith("def host_env") for h in g.helpers):
        g.helpers.append("def host_env(s, v):\n    s.hist.append(round(v, 3))\n"
                         "    return len(s.hist) * 0.1 + v * 0.01\n")
    lines = [f"{t} = {g.texpr()} * 0.5",
             g.choice(["s.count = s.count + 1", "out.append(k)", f"G_LIST.append({t})",
                       "pass"]),
             host,
             f"acc = acc + {t} * 0.1 + {z} * 0.01"]
    if g.chance(0.5):
        lines.append(g.choice([f"s.total = s.total + {z}", f"print('zb', round({z}, 3))",
                               f"s.h = s.h + tf.reduce_sum({t})"]))
    return lines


@rule(0.8, max_depth=1, eager=True)
def graph_break_loop(g):
    """A loop body: tensor stretch, host sampling on its value, tensor stretch (the shape
    of an RL episode), optionally leaving the loop on a host value."""
    i, p, a = g.fresh("i"), g.fresh("p"), g.fresh("a")
    rng = _host_rng(g)
    lines = [f"for {i} in range({g.choice(['2', 'n % 3 + 1', '3'])}):",
             f"    {p} = tf.nn.softmax(tf.stack([tf.reduce_sum(acc), tf.reduce_mean(x)]))",
             f"    {a} = int({rng}.choice(2, p={p}.numpy() / {p}.numpy().sum()))",
             f"    acc = acc * 0.9 + tf.cast({a}, acc.dtype) + tf.reduce_sum({p})",
             f"    s.hist.append({a})"]
    if g.chance(0.4):
        lines += [f"    if {a} == 1 and {i} > 0:", "        break"]
    return lines


@rule(0.8, max_depth=1, eager=True)
def graph_break_tape(g):
    """A tape whose block holds a break: its segments run under the eager tape."""
    tape, y, z, gr = g.fresh("tape"), g.fresh("y"), g.fresh("zb"), g.fresh("g")
    return [f"with tf.GradientTape() as {tape}:",
            f"    {y} = tf.reduce_sum(tf.cast(acc, tf.float32) * V0) + V1",
            f"    {z} = float({y}.numpy())",
            f"    {y} = {y} * {z} * 0.1 + tf.reduce_sum(tf.sin(tf.cast(x, tf.float32))) * V0",
            f"{gr} = {tape}.gradient({y}, [V0, V1])",
            f"V0.assign_sub(0.01 * {gr}[0])",
            f"s.total = s.total + float({z})"]


@rule(0.8, max_depth=1, eager=True)
def host_read_work(g):
    """Reads whose tensor work moves into a segment (janus/transform/host_reads.py):
    consecutive reads of model-like work, a read in a keyword argument, a read after a
    call Python makes first (stays whole), a read of a name (nothing to move), numpy's
    `None` indexing of a fed array inside the moved work."""
    a, b, c = g.fresh("ra"), g.fresh("rb"), g.fresh("rc")
    rng = _host_rng(g)
    lines = [f"{a} = tf.nn.softmax(tf.stack([tf.reduce_sum(acc), tf.reduce_mean(x) * 2.0]))"
             f".numpy()",
             f"{b} = float(tf.reduce_max(tf.cast(acc, tf.float32) * V0))"]
    lines.append(g.choice([
        f"{c} = int({rng}.choice(2, p={a} / {a}.sum()))",
        f"{c} = {rng}.choice([1, 2], p=tf.nn.softmax(tf.constant([0.2, 0.1])).numpy())",
        f"{c} = len(s.hist) + int(tf.argmax(tf.stack([tf.reduce_sum(acc), {b} + 0.0])))",
        f"{c} = float(tf.reduce_sum({a}[None] * 2.0)) + float({a}.sum())",
    ]))
    lines += [f"acc = acc + {b} * 0.01 + float({c}) * 0.1", f"s.hist.append({c})"]
    return lines


@rule(0.8, max_depth=1, eager=True)
def graph_break_leave(g):
    """A loop kept Python (host randomness in its body) whose tensor `if` leaves it after
    Python effects, followed by more statements (janus/transform/leave.py: the test and
    what follows join the segment before it, under a tf.cond carrying variable updates),
    maybe under a tape whose gradient is taken after the `if` (PPO's minibatch loop)."""
    i, z, tape, y, gr = (g.fresh(p) for p in ("i", "zb", "tape", "y", "g"))
    rng = _host_rng(g)
    th = g.choice(["-0.5", "0.0", "0.3", "1.0", "3.0"])
    lines = [f"for {i} in range({g.choice(['3', 'n % 4 + 1', 'len(xs) + 1'])}):",
             f"    {z} = float({rng}.random())"]
    tape_used = g.chance(0.5)
    if tape_used:
        lines += [f"    with tf.GradientTape() as {tape}:",
                  f"        {y} = tf.reduce_sum(tf.cast(acc, tf.float32) * V0) * {z} + V1"]
    else:
        lines += [f"    {y} = tf.reduce_mean(tf.cast(acc, tf.float32)) + {z}"]
    test = g.choice([f"{y} > {th}", f"{y} * {z} < {th}", f"{z} > 0.8 or {y} > {th}"])
    leave_body = [g.choice([f"s.hist.append({i})", f"print('left', {i})",
                            "s.count = s.count + 1", "k = k + 1", "pass"]),
                  g.choice(["break", "break", "continue"])]
    lines += [f"    if {test}:"] + indent(leave_body, 2)
    after = [f"    acc = acc * 0.5 + tf.cast({y}, acc.dtype)"]
    if tape_used:
        after = [f"    {gr} = {tape}.gradient({y}, [V0, V1])",
                 f"    V0.assign_sub(0.05 * {gr}[0])"] + after
    else:
        after.append(g.choice([f"    V1.assign_add({y} * 0.1)", f"    V0.assign(V0 * 0.9)"]))
    if g.chance(0.3):  # Python effects after the `if`: no tf.cond holds them
        after.append(g.choice([f"    s.hist.append({i})", "    out.append(k)",
                               f"    print('stayed', {i})"]))
    return lines + after


# -- numpy arrays read by tensor code, changed in place between calls (finding F16) ------

@rule(0.6, eager=True)
def numpy_array_in_place(g):
    """A global numpy array read by tensor code and changed in place at the end of the
    call (`A[i] = ...`, a graph break: the runner turns segments on): the segment graph
    reading it must see its current values on every call, not those it was traced with."""
    arr, i = g.fresh("ARR"), g.fresh("i")
    size = g.rng.randint(1, 3)
    g.helpers.append(f"{arr} = np.linspace(0.5, 1.5, {size}).astype(np.float32)\n")
    use = g.rng.choice(["sum", "scale", "index"])
    if use == "sum":
        lines = [f"acc = acc + tf.reduce_sum({arr})"]
    elif use == "scale":
        lines = [f"acc = acc * {arr}[0] + {arr}[-1]"]
    else:
        lines = [f"acc = acc + tf.reduce_mean(tf.gather({arr}, [0, {size} - 1]))"]
    lines += [f"for {i} in range({size}):",
              f"    {arr}[{i}] = {arr}[{i}] * 0.5 + {g.rng.choice(['0.25', '1.0', '-0.5'])}"]
    return lines


# -- lambdas of the program with heap effects, called directly (finding F15) -------------

@rule(0.6)
def lambda_effect(g):
    """A lambda defined in `f` that writes the heap (a global list, an attribute, a dict)
    and returns a tensor expression, called directly, maybe in a loop: its effects must
    happen once per call as in plain Python, also on the call that traces a graph."""
    fn, v = g.fresh("lam"), g.fresh("v")
    effect = g.rng.choice([f"G_LIST.append({v})", f"G_DICT.setdefault('lam', []).append({v})",
                           f"s.hist.append({v})"])
    lines = [f"{fn} = lambda {v}: ({effect}, acc * 0.5 + {v})[1]"]
    if g.chance(0.5):
        i = g.fresh("i")
        lines += [f"for {i} in range(n % 3 + 1):", f"    acc = {fn}({i})"]
    else:
        lines += [f"acc = {fn}(len(xs))"]
    return lines


# -- a variable updated, then read under a tape in the same call (fuzz seed 401313) -------

@rule(0.8)
def variable_update_then_tape(g):
    """A variable assigned from the input, then read under a tape: its gradient must be a
    read's (a leaf: nothing flows to what was assigned), also tested for None."""
    tape, y, gv, ga = g.fresh("tape"), g.fresh("y"), g.fresh("gv"), g.fresh("ga")
    var = g.rng.choice(["V0", "V1"])
    update = g.rng.choice([f"{var}.assign(tf.reduce_mean(tf.cast(acc, tf.float32)))",
                           f"{var}.assign_add(tf.cast(tf.reduce_mean(acc), tf.float32) * 0.1)"])
    return [update,
            f"with tf.GradientTape() as {tape}:",
            f"    {tape}.watch(acc)",
            f"    {y} = tf.reduce_sum(tf.cast(acc, tf.float32) * {var} * {var})",
            f"{gv}, {ga} = {tape}.gradient({y}, [{var}, acc])",
            f"if {gv} is not None:",
            f"    {var}.assign_sub(0.01 * {gv})",
            f"if {ga} is not None:",
            f"    acc = acc + 0.1 * {ga}"]


# -- a tensor handed on unchanged (fuzz seed 401626) --------------------------------------

@rule(0.6)
def alias_input(g):
    """`acc` becomes the argument itself (or an item of the list argument), maybe stored
    on the state object, then tested for identity: Python hands on the very object."""
    k = g.fresh("same")
    lines = [g.rng.choice(["acc = x", "acc = xs[0] if xs else x"])]
    if g.chance(0.5):
        lines.append("s.h = acc")
    lines += [f"{k} = acc is x", f"if {k}:", "    k += 1"]
    return lines


@rule(0.5)
def alias_arguments(g):
    """A helper called with one tensor twice or with two (by `flag`/`n`, which the calls
    change; one of another dtype, which can never be the same object): which arguments
    are one object is an assumption of the helper's own graphs (a callee jitted on its
    own) and of the aliases guard; `is` and a tape over one argument observe it."""
    if not any(h.startswith("def pair_tape") for h in g.helpers):
        g.helpers.append(
            "def pair_tape(a, b):\n"
            "    with tf.GradientTape() as tape:\n"
            "        tape.watch(a)\n"
            "        y = tf.reduce_sum(tf.tanh(a) * tf.cast(b, a.dtype))\n"
            "    ga = tape.gradient(y, a)\n"
            "    return a is b, (tf.zeros_like(a) if ga is None else ga)\n")
    same, gr = g.fresh("same"), g.fresh("gr")
    other = g.choice(["x if flag else acc", "acc if n % 2 else x", "xs[0] if xs else x",
                      "x if flag else tf.cast(tf.round(acc), tf.int32)"])
    return [f"{same}, {gr} = pair_tape(x, {other})", f"if {same}:", "    k += 1",
            f"acc = acc + {gr} * 0.1"]


# -- graph breaks known from the source (issue 10: segments on by default) ----------------

@rule(0.6, eager=True)
def graph_break_numpy_values(g):
    """A local holding numpy values (`.numpy()`), its numpy methods and an in-place write
    (breaks known before any trace), then tensor code reading it; a user helper called
    between segments (run as its own graph)."""
    hv = g.fresh("hv")
    if not any(h.startswith("def host_scale") for h in g.helpers):
        g.helpers.append("def host_scale(t):\n    return tf.reduce_sum(tf.tanh(t)) * 0.5\n")
    return [f"{hv} = tf.reshape(tf.cast(acc, tf.float32), [-1]).numpy()",
            f"{hv} = ({hv} - {hv}.mean()) / ({hv}.std() + 1e-3)",
            f"if {hv}.size:",
            f"    {hv}[0] = {hv}[0] * 0.5 + {g.choice(['1.0', '-0.25', 'float(k)'])}",
            f"acc = acc + tf.cast(tf.reduce_sum(tf.constant({hv}) * 0.1) + "
            f"host_scale(tf.cast(x, tf.float32)), acc.dtype)"]


@rule(0.5, max_depth=1, eager=True)
def graph_break_update_loop(g):
    """A loop that records a tape and updates a variable each iteration, leaving on a
    tensor test (opened before any trace: the loop and its `if` stay Python)."""
    i, tape, y, gr = g.fresh("i"), g.fresh("tape"), g.fresh("y"), g.fresh("g")
    return [f"for {i} in range({g.choice(['2', '3', 'n % 3 + 1'])}):",
            f"    with tf.GradientTape() as {tape}:",
            f"        {y} = tf.reduce_sum(tf.cast(acc, tf.float32) * V0) + V1 * float({i} + 1)",
            f"    {gr} = {tape}.gradient({y}, [V0, V1])",
            f"    V0.assign_sub(0.01 * {gr}[0])",
            f"    s.hist.append(round(float({y}), 3))",
            f"    if tf.reduce_sum(tf.cast(x, tf.float32)) * V0 > {g.choice(['0.0', '1.0', '-1.0'])}:",
            "        break"]


# -- growing per-step lists handed across segments, loops opened by a failed trace -----

@rule(0.6, max_depth=1, eager=True)
def graph_break_growing_lists(g):
    """An RL-style rollout: per-step lists that grow (tensors only appended to, floats,
    then read after the loop), a numpy array whose length changes between calls fed to
    the next stretch (segments: append-only lists, stacked lists, dynamic numpy dims)."""
    i, p, a = g.fresh("i"), g.fresh("p"), g.fresh("a")
    lp, rw, ret = g.fresh("lp"), g.fresh("rw"), g.fresh("ret")
    rng = _host_rng(g)
    return [f"{lp}, {rw} = [], []",
            f"for {i} in range({g.choice(['n % 3 + 1', 'n % 4 + 2', '3'])}):",
            f"    {p} = tf.nn.softmax(tf.stack([tf.reduce_sum(tf.cast(acc, tf.float32)), "
            f"tf.reduce_mean(tf.cast(x, tf.float32))]))",
            f"    {a} = int({rng}.choice(2, p={p}.numpy() / {p}.numpy().sum()))",
            f"    {lp}.append(tf.math.log({p}[{a}] + 1e-3) * 1.0 + 0.5)",
            f"    {rw}.append(float({a}) + 0.5)",
            f"{ret} = np.cumsum(np.array({rw}, dtype=np.float32)[::-1])[::-1]",
            f"acc = acc + tf.cast(tf.reduce_sum(tf.stack({lp}) * {ret}) * 0.01, acc.dtype)",
            f"s.hist.append(len({rw}))"]


@rule(0.5, max_depth=1, eager=True)
def graph_break_loop_opened(g):
    """A loop whose body calls a host helper that janus finds unconvertible only while
    tracing (it iterates a numpy array): the trace fails inside the loop's segment, the
    loop is opened (runs in Python) and its body split around the helper."""
    i = g.fresh("i")
    if not any(h.startswith("def host_walk") for h in g.helpers):
        g.helpers.append("HOST_ARR = np.array([0.5, -0.25, 1.0], dtype=np.float32)\n\n\n"
                         "def host_walk(s, v):\n    total = 0.0\n"
                         "    for e in HOST_ARR:\n        total = total + float(e) * v\n"
                         "    return total\n")
    return [f"for {i} in range({g.choice(['2', 'n % 3 + 1'])}):",
            "    acc = acc * 0.5 + tf.cast(tf.reduce_sum(tf.tanh(tf.cast(x, tf.float32))), "
            "acc.dtype)",
            f"    acc = acc + host_walk(s, float({i}) * 0.1)",
            "    acc = acc * 0.9 + 0.1"]


@rule(0.7, max_depth=1)
def count_and_factor(g):
    """Python numbers that change per call in two roles: a loop count (`range(...)`, stays
    guarded once feeding it fails) and a factor (fed as a scalar tensor), read from the
    argument `n`, the state's counter and a list item's attribute."""
    i, c = g.fresh("i"), g.fresh("c")
    count = g.choice(["n % 3 + 1", "s.count % 3", "n"])
    factor = g.choice(["float(s.count) * 0.1", "n * 0.25", "s.total * 0.5 + 0.1"])
    return [f"{c} = {factor}",
            f"for {i} in range({count}):",
            f"    acc = acc * 0.5 + {c} * {g.texpr()}",
            "s.count = s.count + 1",
            f"s.total = s.total + {c}"]
