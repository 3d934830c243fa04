"""More generator rules (generator v15): constructs researcher programs use that the first
rule set (`rules.py`) did not generate: try/finally around tensor code and errors raised
by TF ops, user context managers, varargs/defaults (also mutable ones), attributes added
and deleted, `None`-valued optionals, `isinstance` dispatch, variable slices updated in
loops, `tf.TensorArray`, formatted prints of tensors, returns from nested loops, Python
numbers that change type, properties, and generator expressions with tensor filters.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.generator import indent
from tests.fuzz.rules import rule


def _helper(g, text: str) -> None:
    """Add a module-level piece once."""
    if text not in g.helpers:
        g.helpers.append(text)


# -- try/finally, errors TF ops raise ------------------------------------------------------

@rule(0.7, max_depth=1)
def try_finally(g):
    """`try/finally` around tensor code whose body may raise (on a tensor test, a TF
    assert or an op's own error): the `finally` block's effects must happen exactly once,
    after the effects made before the raise, raised or not."""
    raiser = g.choice([
        [f"if {g.tcond()}:", "    raise ValueError('tensor test in try')"],
        ["tf.debugging.assert_less(tf.reduce_max(acc), tf.cast("
         f"{g.choice(['0.9', '1.5', '3.0'])}, acc.dtype), message='too big')"],
        [f"acc = acc + tf.reduce_sum(tf.gather(tf.reshape(x, [-1]), [{g.choice(['n', 'k % 4', '2'])}])) * 0.1"],
    ])
    effect = g.choice(["s.count += 1", "s.hist.append(k)", "G_LIST.append(len(out))",
                       "print('finally', k)", "s.total = s.total + 0.25"])
    lines = ["try:", f"    s.count = s.count + {g.choice(['1', 'len(xs)'])}"]
    lines += indent(raiser) + indent(g.block(1))
    lines += ["finally:", f"    {effect}"]
    return lines


@rule(0.4, max_depth=1, eager=True)
def try_except_tf_error(g):
    """A TF op's own error (an assert, an index out of range) caught by the program."""
    return ["try:",
            f"    s.hist.append({g.choice(['k', 'n'])})",
            "    tf.debugging.assert_non_negative(tf.reduce_min(acc), message='neg')",
            "    acc = acc * 2.0",
            "except (tf.errors.InvalidArgumentError, ValueError) as e:",
            "    print('caught', type(e).__name__)",
            "    acc = tf.abs(acc)",
            "else:",
            "    s.count += 1"]


# -- with blocks of the program's own context managers --------------------------------------

_CTX = '''\
class Scope:
    """A user context manager with heap effects on enter and exit."""
    def __init__(self, s, tag):
        self.s = s
        self.tag = tag

    def __enter__(self):
        self.s.hist.append(self.tag)
        return self

    def __exit__(self, typ, value, tb):
        self.s.count += 1
        return False
'''

_CTXGEN = '''\
import contextlib


@contextlib.contextmanager
def timed(s, tag):
    s.hist.append(tag)
    try:
        yield len(s.hist)
    finally:
        s.total = s.total + 0.5
'''


@rule(0.8, max_depth=1)
def with_block(g):
    """`with` blocks other than tapes: tf.name_scope, a user context manager class, a
    `contextlib.contextmanager` generator (enter/exit effects, maybe an exception)."""
    kind = g.rng.randint(0, 2)
    if kind == 0:
        head = f"with tf.name_scope('blk{g.rng.randint(0, 9)}'):"
    elif kind == 1:
        _helper(g, _CTX)
        head = f"with Scope(s, {g.choice(['k', 'n', repr('w')])}) as {g.fresh('sc')}:"
    else:
        _helper(g, _CTXGEN)
        v = g.fresh("tv")
        g.bind("int", v)
        head = f"with timed(s, {g.choice(['k', 'n'])}) as {v}:"
    body = g.block()
    if g.chance(0.3):
        body += [f"if {g.cond()}:", "    raise ValueError('in with')"]
    return [head] + indent(body)


# -- functions: *args/**kwargs, defaults, mutable defaults, keyword calls -----------------

@rule(0.9)
def varargs_defaults(g):
    """Helpers with default arguments (a mutable default that persists across calls),
    `*args` and `**kwargs`, called with keywords, starred lists and dict unpacking."""
    name = g.fresh("vh")
    kind = g.rng.randint(0, 3)
    if kind == 0:
        g.helpers.append(f"def {name}(a, scale=0.5, *rest, shift=None, **opts):\n"
                         "    if shift is not None:\n"
                         "        a = a + shift\n"
                         "    for r in rest:\n"
                         "        a = a + r * 0.1\n"
                         "    if opts.get('square'):\n"
                         "        a = a * a\n"
                         "    return a * scale + len(opts)\n")
        call = g.choice([f"{name}({g.texpr()})", f"{name}(acc, 0.25, *xs)",
                         f"{name}(acc, shift={g.choice(['1.0', 'None', 'x', 'k'])})",
                         f"{name}(acc, **{{'square': flag, 'extra': n}})",
                         f"{name}(*[acc], scale=float(n) * 0.5, square=k > 1)"])
        return [f"acc = {call}"]
    if kind == 1:
        g.helpers.append(f"def {name}(a, seen=[]):\n"
                         "    seen.append(len(seen))\n"
                         "    if len(seen) > 3:\n"
                         "        return a * 0.5\n"
                         "    return a + float(len(seen))\n")
        return [f"acc = {name}({g.texpr()})", f"k = k + len({name}.__defaults__[0]) % 3"]
    if kind == 2:
        g.helpers.append(f"def {name}(*args, **kwargs):\n"
                         "    total = args[0]\n"
                         "    for a in args[1:]:\n"
                         "        total = total + a\n"
                         "    for key in sorted(kwargs):\n"
                         "        total = total * kwargs[key]\n"
                         "    return total\n")
        return [f"acc = {name}(acc, *xs, **({{'b': 0.5}} if flag else {{}}))"]
    g.helpers.append(f"def {name}(a, cache={{}}):\n"
                     "    key = tuple(a.shape)\n"
                     "    cache[key] = cache.get(key, 0) + 1\n"
                     "    return a * (1.0 + 0.1 * cache[key])\n")
    return [f"acc = {name}({g.texpr()})"]


# -- attributes added and deleted, None-valued optionals --------------------------------

@rule(1.0, max_depth=2)
def optional_attribute(g):
    """Attributes that come and go (`hasattr`, `getattr(..., None)`, `del`) and a
    `None`-valued optional that becomes a tensor (best-loss tracking)."""
    kind = g.rng.randint(0, 3)
    if kind == 0:
        return ["loss = tf.reduce_sum(acc * acc)",
                "if getattr(s, 'best', None) is None or loss < s.best:",
                "    s.best = loss",
                "    s.count += 1"]
    if kind == 1:
        return ["if hasattr(s, 'extra'):",
                "    acc = acc + s.extra",
                "    del s.extra",
                f"elif {g.cond()}:",
                f"    s.extra = {g.texpr()} * 0.5"]
    if kind == 2:
        opt = g.fresh("opt")
        return [f"{opt} = None",
                f"if {g.cond()}:",
                f"    {opt} = {g.texpr()}",
                f"acc = acc if {opt} is None else acc + {opt} * 0.5",
                f"s.last = {opt}"]
    return ["s.mark = getattr(s, 'mark', 0) + 1",
            "if s.mark > 2:",
            "    del s.mark",
            "    acc = acc * 0.5"]


# -- isinstance dispatch ------------------------------------------------------------------

_PREP = '''\
def prep(v):
    if isinstance(v, (list, tuple)):
        return tf.add_n(v) if v else 0.0
    if isinstance(v, dict):
        return len(v) * 0.5
    if isinstance(v, tf.Tensor):
        return tf.reduce_mean(v)
    if isinstance(v, bool):
        return 2.0 if v else -1.0
    if isinstance(v, (int, float)):
        return float(v) * 0.25
    return 0.0
'''


@rule(0.8)
def isinstance_dispatch(g):
    """A helper dispatching on `isinstance` of its argument (list/dict/tensor/bool/int),
    called with values whose type changes between calls."""
    _helper(g, _PREP)
    arg = g.choice(["xs", "x", "k", "flag", "s.d", "xs if flag else x", "n if flag else acc",
                    "s.h", "(acc, x)", "G_SCALE"])
    return [f"acc = acc + prep({arg}) * 0.1"]


# -- variables: slices and scatters updated in loops ---------------------------------

_VEC = "VEC = tf.Variable(tf.zeros([4]))\n"


@rule(0.8, max_depth=1)
def variable_scatter(g):
    """A vector variable updated piecewise in a loop (scatter, slice assign, assign_add),
    then read: every update once per iteration, in order."""
    _helper(g, _VEC)
    i = g.fresh("i")
    upd = g.choice([
        f"VEC.scatter_nd_add([[{i} % 4]], [tf.cast(tf.reduce_sum(acc), tf.float32)])",
        f"VEC[{i} % 4].assign(tf.cast(tf.reduce_mean(acc), tf.float32) + float({i}))",
        f"VEC.assign_add(tf.one_hot({i} % 4, 4) * 0.5)",
        f"VEC.scatter_update(tf.IndexedSlices([float(k)], [{i} % 4]))",
    ])
    return [f"for {i} in range({g.choice(['n % 3 + 1', '2', 'len(xs) + 1'])}):",
            f"    {upd}",
            f"    if {g.cond()}:",
            f"        VEC.assign(VEC * 0.5)",
            "acc = acc + tf.cast(tf.reduce_sum(VEC), acc.dtype) * 0.01"]


# -- tf.TensorArray -----------------------------------------------------------------------

@rule(0.7, max_depth=1)
def tensor_array(g):
    """A `tf.TensorArray` written in a Python loop, then stacked or read."""
    ta, i = g.fresh("ta"), g.fresh("i")
    lines = [f"{ta} = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)",
             f"for {i} in range({g.choice(['n % 3 + 1', '2', 'len(xs) + 1'])}):",
             f"    acc = acc * 0.5 + {g.texpr()}",
             f"    {ta} = {ta}.write({i}, acc)"]
    lines.append(g.choice([f"acc = tf.reduce_mean({ta}.stack(), axis=0)",
                           f"acc = acc + {ta}.read({ta}.size() - 1) * 0.5",
                           f"k = k + int({ta}.size())"]))
    return lines


# -- printing tensors through string formatting -------------------------------------

@rule(0.9)
def print_format(g):
    """Tensors and Python values in f-strings, %-formatting, str(), shapes and dtypes."""
    return [g.choice([
        "print(f'acc={acc}')",
        "print(f'k={k} n={n:02d} flag={flag!r}')",
        "print('sum %s' % tf.reduce_sum(acc))",
        "print('shape', acc.shape, acc.dtype.name, str(x.shape))",
        "print(str(tf.reduce_max(acc)))",
        "print('{} items'.format(len(xs)), repr(k))",
        "print(f'{len(out)} out, total {s.total:.3f}')",
        "print('list', [k, n], {'k': k})",
    ])]


# -- returns from nested loops --------------------------------------------------------

@rule(0.7, max_depth=1)
def nested_loop_return(g):
    """An early return from inside two nested loops, on a tensor or Python test, after
    heap effects in the loops."""
    i, t = g.fresh("i"), g.fresh("item")
    return [f"for {i} in range({g.choice(['2', 'n % 3 + 1'])}):",
            f"    for {t} in xs:",
            f"        acc = acc * 0.5 + {t}",
            f"        s.hist.append({i})",
            f"        if {g.cond()}:",
            f"            return {g.choice(['acc', '(acc, k)', '(acc, s.count)'])}",
            "    k += 1"]


# -- Python numbers that change type --------------------------------------------------------

@rule(0.9)
def number_type_change(g):
    """Python numbers whose type changes between calls or iterations (int -> float,
    Python float -> numpy float32, bool -> int), used as factors and stored on the heap."""
    c = g.fresh("c")
    value = g.choice(["n // 2 if flag else n / 2", "1 if flag else 1.5",
                      "np.float32(0.5) if flag else 0.5", "np.float64(n) * 0.25",
                      "flag + k", "True if n > 1 else 0", "s.count / 2",
                      "np.int64(n) + 1"])
    lines = [f"{c} = {value}", f"acc = acc * {c} + 0.1"]
    lines.append(g.choice([f"s.total = s.total + {c}", f"s.last_c = {c}",
                           f"s.d['c'] = {c}", f"out.append({c})", f"k = k + int({c})"]))
    return lines


# -- properties ---------------------------------------------------------------------------

@rule(0.7)
def property_access(g):
    """A property of the state object computed from its attributes (and one with a
    setter that writes the heap)."""
    if not any("def scaled(self)" in m for m in g.methods):
        g.methods.append("    @property\n"
                         "    def scaled(self):\n"
                         "        return self.h * 0.5 + self.total * 0.1\n\n"
                         "    @property\n"
                         "    def level(self):\n"
                         "        return self.count\n\n"
                         "    @level.setter\n"
                         "    def level(self, v):\n"
                         "        self.count = v\n"
                         "        self.hist.append(v)\n")
    return g.choice(["acc = acc + tf.cast(s.scaled, acc.dtype)",
                     "s.level = s.level + 1",
                     "if s.level > 2:\n    acc = acc * 0.5\n    s.level = 0"]).split("\n")


# -- comprehensions / generator expressions with (tensor) conditions -------------------

@rule(0.8)
def filtered_generator(g):
    """Generator expressions and comprehensions with conditions (Python and tensor
    tests), `any`/`all`, `max` with a key, a dict comprehension."""
    return g.choice([
        ["acc = acc + sum((t * 0.5 for t in xs if tf.reduce_sum(t) > 0), tf.zeros_like(acc))"],
        ["if any(tf.reduce_max(t) > 0.9 for t in xs):", "    acc = acc * 0.5"],
        ["if all(t.shape == x.shape for t in xs) and xs:", "    acc = acc + xs[-1]"],
        ["acc = acc + (max(xs, key=lambda t: float(tf.reduce_sum(t))) if xs else x)"],
        ["out = out + [t for i, t in enumerate(xs) if i % 2 == 0]"],
        [f"{g.fresh('dd')} = {{i: t * 0.5 for i, t in enumerate(xs) if i != k % 2}}"],
        ["k = k + len([1 for t in xs if tf.reduce_mean(t) > 0.0])"],
    ])
