"""Generator v18 rules: everyday Python constructs in researcher code that the earlier
rule sets (`rules.py`, `rules_more.py`) did not generate: while loops on a tensor
counter, boolean operators and chained comparisons (on tensors and Python numbers),
conditional expressions on tensor tests, `assert`, augmented assignment into list items
and dict values, dict items / min / max / sum / sorted over Python numbers, negative
indices and slices of lists of tensors, static shapes used as Python ints, a Keras
`Dense` layer, nested tuple unpacking, `tf.range` loops and `del` of list items.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.generator import indent
from tests.fuzz.rules import rule


def _helper(g, text: str) -> None:
    """Add a module-level piece once."""
    if text not in g.helpers:
        g.helpers.append(text)


# -- loops on tensor counters, tf.range ----------------------------------------------------

@rule(0.9, max_depth=2)
def tensor_while(g):
    """A while loop whose test is a tensor (a tensor counter against a Python bound, maybe
    and a tensor test on the data), with `continue` and `break` on tensor or Python tests
    and heap effects in the body."""
    j = g.fresh("tj")
    bound = g.choice(["n % 3 + 1", "2", "3"])  # (not len(xs): the body may append to it)
    test = f"{j} < {bound}"
    if g.chance(0.4):
        test = f"{test} and {g.tcond()}"
    g.loop_depth += 1
    try:
        body = [f"{j} += 1"]
        if g.chance(0.5):
            body += [f"if {g.cond()}:", "    continue"]
        body += [f"acc = acc * 0.5 + {g.texpr()}"] + g.block(1)
        if g.chance(0.5):
            body += [f"if {g.cond()}:", "    break"]
        body.append(g.choice(["s.count += 1", "out.append(acc)", "k += 1",
                              f"s.hist.append(int({j}))"]))
    finally:
        g.loop_depth -= 1
    lines = [f"{j} = tf.constant(0)", f"while {test}:"] + indent(body)
    if g.chance(0.3):
        lines += ["else:", "    s.total = s.total + 0.5"]
    return lines


@rule(0.8, max_depth=2)
def trange_loop(g):
    """`for i in tf.range(...)`: the index is a scalar tensor; Python effects in the body
    happen once per iteration (plain Python iterates an eager tensor)."""
    i = g.fresh("ti")
    bound = g.choice(["n % 3 + 1", "2", "tf.shape(x)[0]", "len(xs)"])
    body = [f"acc = acc + tf.cast({i}, acc.dtype) * 0.1"]
    body.append(g.choice(["s.count += 1", f"out.append({i})", "k += 1",
                          "G_LIST.append(len(out))", f"acc = acc * 0.5 + {g.texpr()}"]))
    if g.chance(0.4):
        body += [f"if {g.choice([g.tcond(), f'{i} > 0', f'{i} >= n'])}:",
                 f"    {g.choice(['break', 'continue'])}"]
        body += [f"acc = tf.tanh(acc) + {g.texpr()} * 0.1"]
    return [f"for {i} in tf.range({bound}):"] + indent(body)


# -- boolean operators, chained comparisons, conditional expressions ------------------

@rule(1.0, max_depth=2)
def bool_ops(g):
    """`and` / `or` / `not` and chained comparisons on tensors and Python numbers, as
    branch tests and as values (`c = a or b` is one of its operands, maybe a tensor)."""
    m = f"tf.reduce_mean({g.tensor()})"
    lo, hi = g.choice([("-0.5", "0.5"), ("0.0", "1.0"), ("-1.0", "0.25")])
    kind = g.rng.randint(0, 4)
    if kind == 0:
        test = g.choice([f"{lo} < {m} < {hi}", f"not {lo} <= {m} <= {hi}",
                         f"{m} < {hi} < float(n)", f"0 <= k < n <= 3"])
        return [f"if {test}:", f"    acc = acc * 0.5 + {g.texpr()}", "else:",
                f"    acc = acc - 0.25"]
    if kind == 1:
        c = g.fresh("bc")
        value = g.choice([f"{g.tcond()} or {g.pcond()}", f"{g.pcond()} and {g.tcond()}",
                          f"not {g.tcond()}", f"{g.tcond()} and {g.tcond()}",
                          f"k > 1 or {m} > 0.0", f"(n > 1) and ({m} < {hi})"])
        return [f"{c} = {value}", f"if {c}:", f"    acc = acc + {g.texpr()} * 0.5",
                g.choice([f"s.last_b = {c}", f"k = k + (1 if {c} else 0)",
                          f"acc = acc * tf.cast({c}, acc.dtype)"])]
    if kind == 2:
        return [f"if not ({g.cond()}) or not {g.pcond()}:", "    k += 1",
                f"    acc = tf.maximum(acc, {g.texpr()})"]
    if kind == 3:
        return [f"k = k + int(({lo} < {m} < {hi}) or k > n)"]
    return [f"acc = acc * {g.choice(['2.0', '0.5'])} if {m} < {hi} and n > 0 else acc"]


@rule(1.0)
def cond_expr(g):
    """Conditional expressions `a if test else b` on tensor tests: as a tensor, a Python
    int, a call argument, a heap value; nested."""
    t = g.tcond()
    return [g.choice([
        f"acc = {g.texpr()} * 0.5 if {t} else acc + 1.0",
        f"k = k + (1 if {t} else 2)",
        f"acc = tf.tanh(acc if {t} else {g.texpr()})",
        f"s.d['ce'] = 'hi' if {t} else 'lo'",
        f"acc = acc * (0.5 if {t} else (2.0 if {g.cond()} else 1.0))",
        f"out.append(acc if {t} else k)",
        f"s.total = s.total + (0.5 if {t} else 0.25)",
    ])]


# -- assert --------------------------------------------------------------------------------

@rule(0.7)
def assert_stmt(g):
    """`assert` on tensor tests, Python values and shapes (an AssertionError with its
    message when it fails)."""
    return [g.choice([
        f"assert tf.reduce_max(tf.abs(acc)) < {g.choice(['2.0', '5.0', '50.0'])}, 'acc too big'",
        f"assert len(xs) < {g.rng.randint(1, 3)}, f'too many items: {{len(xs)}}'",
        "assert acc.shape == x.shape",
        f"assert n != {g.rng.randint(0, 4)}, ('bad n', n)",
        f"assert {g.tcond()} or k > 0",
        "assert acc.dtype == tf.float32, acc.dtype.name",
    ])]


# -- augmented assignment into items ---------------------------------------------------

@rule(1.0)
def item_aug_assign(g):
    """`xs[i] += t`, `ys[-1] *= c`, `d[key] += v` into list items and dict values (the
    list argument, a local list, the state's dict, a global dict)."""
    options = [
        [f"{(ys := g.fresh('ys'))} = [acc, x * 0.5]", f"{ys}[0] += {g.texpr()}",
         f"{ys}[-1] *= 0.5", f"acc = {ys}[0] + {ys}[1]"],
        ["s.d['n'] = s.d.get('n', 0)", "s.d['n'] += k + 1", "k = k + s.d['n'] % 3"],
        ["G_DICT['acc'] = G_DICT.get('acc', 0.0)",
         "G_DICT['acc'] += float(n) * 0.5", "acc = acc + G_DICT['acc'] * 0.01"],
        [f"{(dd := g.fresh('dd'))} = {{'a': acc, 'b': 1}}", f"{dd}['a'] -= {g.texpr()} * 0.5",
         f"{dd}['b'] += len(xs)", f"acc = {dd}['a'] * float({dd}['b'])"],
        ["if s.hist:", "    s.hist[-1] += 1"],
    ]
    if "xs" not in g.iterating:
        options += [["if xs:", f"    xs[0] += {g.texpr()} * 0.1"],
                    [f"for {(i := g.fresh('i'))} in range(len(xs)):",
                     f"    xs[{i}] *= 0.5", f"    if {g.cond()}:",
                     f"        xs[{i}] += acc"]]
    return g.choice(options)


@rule(0.6)
def del_items(g):
    """`del` of list items and slices (the list argument, `out`, the state's list)."""
    options = [["if out:", "    del out[0]"], ["del s.hist[:2]"],
               [f"{(ys := g.fresh('ys'))} = [acc, x, acc * 2.0]", f"del {ys}[{g.choice(['1', '-1', '0'])}]",
                f"acc = {ys}[0] + {ys}[-1] * 0.5"],
               ["if len(s.hist) > 1:", "    del s.hist[-1]"]]
    if "xs" not in g.iterating:
        options += [["if xs:", f"    del xs[{g.choice(['-1', '0'])}]"], ["del xs[1:]"]]
    return g.choice(options)


# -- dicts and lists of Python numbers --------------------------------------------------

@rule(0.9)
def python_numbers(g):
    """`for key, v in d.items()`, `sorted`, `min`/`max`/`sum` over Python lists of numbers
    built from the inputs and the heap."""
    vals, key, v = g.fresh("vals"), g.fresh("key"), g.fresh("v")
    kind = g.rng.randint(0, 3)
    if kind == 0:
        return [f"{vals} = [k, n, len(xs), s.count % 5]",
                f"k = max({vals}) - min({vals}) + sum({vals}) % 3",
                f"acc = acc * (1.0 + 0.1 * sorted({vals})[1])"]
    if kind == 1:
        d = g.fresh("d")
        return [f"{d} = {{'k': k, 'n': n, 'f': float(n) * 0.5}}",
                f"for {key}, {v} in {d}.items():",
                f"    if {v} > {g.rng.randint(0, 2)}:",
                f"        acc = acc + {v} * 0.1",
                f"        s.hist.append({key})"]
    if kind == 2:
        return [f"for {key}, {v} in sorted(ENV.items()):",
                f"    acc = acc * {v} * 0.5",
                f"ENV['scale'] = min(ENV['scale'] + {g.choice(['0.5', 'float(k)', 'n * 0.25'])}, 4.0)"]
    return [f"{vals} = [float(n), s.total, G_SCALE]",
            f"s.total = round(sum({vals}) / len({vals}), 3)",
            f"if max({vals}) > {g.choice(['1.0', '2.0'])}:",
            f"    acc = acc * 0.5"]


# -- lists of tensors: negative indices, slices, reversed --------------------------------

@rule(1.0)
def list_index_slice(g):
    """Negative indices and slices of lists of tensors (`xs[-1]`, `xs[1:]`, `xs[::-1]`,
    `reversed`), guarded by the list's length or not (an IndexError then)."""
    t = g.fresh("it")
    return g.choice([
        ["if len(xs) >= 2:", "    acc = acc + xs[-2] * 0.5"],
        ["acc = acc + sum(xs[-2:], tf.zeros_like(acc)) * 0.5"],
        [f"for {t} in xs[::-1]:", f"    acc = acc * 0.5 + {t}"],
        [f"for {t} in reversed(xs[1:]):", f"    acc = acc - {t} * 0.25", "    k += 1"],
        ["acc = (xs + [acc])[-1] * 0.5 + acc * 0.5"],
        [f"{(ys := g.fresh('ys'))} = [acc, x] + xs", f"acc = tf.add_n({ys}[1::2] + [acc])"],
        ["acc = acc + xs[-1]"],  # IndexError on an empty list, in both
    ])


# -- static shapes as Python ints ----------------------------------------------------------

@rule(0.9)
def shape_ints(g):
    """`t.shape[0]`, `len(t)`, `t.shape.rank`, `t.ndim` used as Python ints: loop bounds,
    tests, factors, reshapes, heap values."""
    i = g.fresh("i")
    return g.choice([
        ["k = k + acc.shape[0]"],
        [f"for {i} in range(len(x)):", f"    acc = acc + tf.reduce_sum(x[{i}]) * 0.1"],
        ["acc = acc * (1.0 / x.shape[-1])"],
        ["if x.shape[0] > 2:", "    acc = acc * 0.5", "    s.hist.append(x.shape[0])"],
        ["acc = tf.reshape(tf.reshape(acc, [acc.shape[0], -1]) * 0.5, tf.shape(x))"],
        ["if acc.shape.rank == 2:", "    acc = acc - tf.reduce_mean(acc, axis=1, keepdims=True)"],
        ["k = k + x.ndim + len(acc.shape)"],
        ["s.d['shape'] = tuple(acc.shape)"],
    ])


# -- a Keras layer -----------------------------------------------------------------------

_DENSE = '''\
DENSE = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.3),
                              bias_initializer="ones", activation="tanh")


def features(a):
    """A fixed-size float32 summary of a tensor of any shape: a [1, 3] batch."""
    a = tf.cast(a, tf.float32)
    return tf.reshape(tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a)]), [1, 3])
'''


@rule(0.7, max_depth=1)
def dense_layer(g):
    """A Keras `Dense` layer created once (a module global, or lazily on the state object
    at its first call) and called in the function; maybe under a tape."""
    _helper(g, _DENSE)
    h = g.fresh("hd")
    kind = g.rng.randint(0, 2)
    if kind == 0:
        return [f"{h} = DENSE(features({g.texpr()}))",
                f"acc = acc + tf.cast(tf.reduce_sum({h}), acc.dtype) * 0.5"]
    if kind == 1:
        return ["if getattr(s, 'lin', None) is None:",
                "    s.lin = tf.keras.layers.Dense(1, kernel_initializer='ones', use_bias=False)",
                f"{h} = s.lin(features(acc))",
                f"acc = acc * 0.5 + tf.cast({h}[0, 0], acc.dtype) * 0.1"]
    tape, gr = g.fresh("tape"), g.fresh("gr")
    return [f"with tf.GradientTape() as {tape}:",
            f"    {h} = tf.reduce_sum(DENSE(features(acc)))",
            f"{gr} = {tape}.gradient({h}, DENSE.trainable_variables)",
            f"acc = acc + tf.cast(tf.reduce_sum({gr}[0]), acc.dtype) * 0.1"]


# -- nested tuple unpacking ----------------------------------------------------------------

@rule(0.8)
def nested_unpack(g):
    """Helpers returning nested tuples, unpacked nested / starred; enumerate with a start
    and of a zip."""
    name = g.fresh("pair")
    _helper(g, f"def {name}(a, m):\n"
               "    if m > 1:\n"
               "        return a * 0.5, (a + 1.0, m - 1)\n"
               "    return tf.tanh(a), (a * 2.0, m + 1)\n")
    p, q, m, i, a, b = (g.fresh(c) for c in ("p", "q", "m", "i", "a", "b"))
    return g.choice([
        [f"{p}, ({q}, {m}) = {name}({g.texpr()}, {g.int_expr()})",
         f"acc = {p} + {q} * 0.1", f"k = k + {m}"],
        [f"({p}, {q}), {m} = ({name}(acc, n)[1][0], x), len(xs)",
         f"acc = {p} * 0.5 + {q} * 0.25 + float({m})"],
        [f"{p}, *{q} = [acc] + xs", f"acc = {p} + sum({q}, tf.zeros_like(acc)) * 0.5",
         f"k = k + len({q})"],
        [f"for {i}, ({a}, {b}) in enumerate(zip(xs, xs[1:]), start=1):",
         f"    acc = acc + ({a} - {b}) * float({i}) * 0.1"],
        [f"for {i}, {a} in enumerate(xs, 1):", f"    acc = acc + {a} * (0.5 ** {i})"],
    ])


# -- lambdas made outside converted code ---------------------------------------------------

@rule(0.8)
def foreign_lambda(g):
    """(v51) A lambda made at module level (not by converted code) called by `f`: reading
    the heap through its argument, a global or the global dict (zoo p49's `lambda: 0.1 *
    0.5 ** self.step` schedule: its reads were folded into the graph unguarded), or
    handed to `tf.map_fn` as its function (a callback TF traces)."""
    name = g.fresh("lam").upper()
    if g.chance(0.3):
        g.helpers.append(f"{name} = lambda t: tf.tanh(t) * G_SCALE + ENV['scale'] * 0.1\n")
        return [f"acc = acc + tf.reshape(tf.cast(tf.map_fn({name}, tf.reshape(acc, [-1])), "
                "acc.dtype), tf.shape(acc)) * 0.1"]
    body = g.choice(["t * 0.5 ** (s.count % 3)", "t * G_SCALE + (len(s.hist) % 3) * 0.01",
                     "t + ENV['scale'] * float(s.count % 2)", "tf.tanh(t) * (s.count % 4)"])
    g.helpers.append(f"{name} = lambda s, t: {body}\n")
    lines = [f"acc = acc + tf.cast({name}(s, acc), acc.dtype) * 0.1"]
    if g.chance(0.6):
        lines.append("s.count += 1")
    return lines


# -- objects made on every call -----------------------------------------------------------

_BN_MODEL = '''
def bn_model():
    """A new model with BatchNormalization (its moving statistics are variables)."""
    return tf.keras.Sequential([tf.keras.layers.Dense(2, kernel_initializer="ones"),
                                tf.keras.layers.BatchNormalization()])


def summary3(a):
    """A float32 [1, 3] batch summarizing a tensor of any shape."""
    a = tf.cast(a, tf.float32)
    return tf.reshape(tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a)]), [1, 3])
'''


@rule(0.6, max_depth=1)
def made_each_call(g):
    """(v53) An object `f` makes anew on every call, kept on the state and changed later:
    a Keras model with BatchNormalization trained with `training=True` after a graph
    break, a numpy buffer changed in place by the next call, a set grown by the next
    call. A graph handed out the object its trace made on every run (F150: the model's
    moving statistics went on from an earlier call's model; the buffer came back with
    the earlier call's changes)."""
    kind = g.rng.randint(0, 2)
    if kind == 0:
        _helper(g, _BN_MODEL)
        m, h = g.fresh("mdl"), g.fresh("hb")
        build = [f"{m}.build((None, 3))"] if g.chance(0.5) else []
        return [f"{m} = bn_model()"] + build + [
            f"{h} = float(np.sum(summary3({g.texpr()}).numpy()))",  # (a graph break)
            f"{m}(summary3(acc) * 0.1 + {h} * 0.01, training=True)",
            f"s.hist.append(repr(np.round({m}.layers[1].moving_mean.numpy(), 5).tolist()))",
            f"acc = acc + tf.cast(tf.reduce_sum({m}.layers[1].moving_variance), acc.dtype) * 0.1"]
    if kind == 1:
        value = g.choice(["float(n % 3)", "1.5", "float(k)"])
        return ["if getattr(s, 'buf', None) is not None:",
                f"    s.buf[{g.rng.randint(0, 1)}] += 1.0",
                "    s.hist.append(repr(s.buf.tolist()))",
                f"s.buf = np.zeros(2) + {value}",
                "acc = acc * 0.5 + tf.cast(tf.reduce_sum(s.buf), acc.dtype) * 0.1"]
    return ["if getattr(s, 'seen', None) is not None:",
            "    s.seen.add(len(s.seen) + n)",
            "    s.hist.append(repr(sorted(s.seen)))",
            f"s.seen = {{{g.choice(['n % 2', '0', 'k'])}}}",
            f"acc = acc + {g.texpr()} * 0.1"]
