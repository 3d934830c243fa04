"""Generator v20 rules: what hand-written training scripts do that the earlier rule sets
did not generate: Keras-less models (a class with `__call__` holding `tf.Variable`s and
Python counters, `tf.Module` subclasses, a chain of them) trained by hand under a tape
with a Python learning-rate schedule, `tf.nest` structures and dict comprehensions over
tensors, metric dicts and `collections` containers (`deque` replay buffers,
`defaultdict` logs) updated in loops, activation tables (dicts of functions, `getattr`
on a TF module), lambdas made in loops (late and default-argument binding,
`functools.reduce`), tensors of data-dependent shape (`tf.boolean_mask`, `tf.unique`)
whose static shape is read as a Python int, format specs on tensors in f-strings,
early stopping on host floats, class attributes through classmethods and
staticmethods, `try/except` inside loops, generators consumed partly (`zip` with a
range, `next`), and the TF library objects training scripts hold in globals: a
`tf.random.Generator`, a `tf.data` dataset looped over, a Keras metric, a
`tf.function` helper.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule


def _helper(g, text: str) -> None:
    """Add a module-level piece once."""
    if text not in g.helpers:
        g.helpers.append(text)


def _method(g, text: str) -> None:
    """Add a `State` member once."""
    if text not in g.methods:
        g.methods.append(text)


# -- Keras-less models: __call__, variables, Python counters ---------------------------

_MODEL = '''\
class Affine:
    """A hand-written layer: two variables, a call counter, a list of call numbers."""
    def __init__(self, w, b=0.0):
        self.w = tf.Variable(w)
        self.b = tf.Variable(b)
        self.calls = 0
        self.seen = []

    def __call__(self, a, scale=1.0):
        self.calls += 1
        if self.calls % 3 == 0:
            self.seen.append(self.calls)
        return a * tf.cast(self.w, a.dtype) * scale + tf.cast(self.b, a.dtype)

    @property
    def variables(self):
        return [self.w, self.b]


class Chain:
    def __init__(self, *layers):
        self.layers = list(layers)

    def __call__(self, a):
        for layer in self.layers:
            a = layer(a)
        return a

    @property
    def variables(self):
        return [v for layer in self.layers for v in layer.variables]


AFF = Affine(0.9, 0.1)
CHAIN = Chain(Affine(0.5), Affine(1.2, -0.1))
'''

_MODULE = '''\
class Scaler(tf.Module):
    """A tf.Module with a variable and a Python step counter."""
    def __init__(self):
        super().__init__(name="scaler")
        self.k = tf.Variable(1.0)
        self.steps = 0

    def __call__(self, a):
        self.steps += 1
        return a * tf.cast(self.k, a.dtype) + 0.01 * self.steps


MOD = Scaler()
'''


@rule(1.0, max_depth=1)
def callable_model(g):
    """A model object called like a function (its `__call__` counts calls in Python and
    reads variables), maybe trained by hand under a tape: gradients for its variables,
    `assign_sub` with a Python learning rate over `zip(variables, grads)`."""
    _helper(g, _MODEL)
    model = g.choice(["AFF", "CHAIN", "s.mdl"])
    lines = []
    if model == "s.mdl":
        lines += ["if getattr(s, 'mdl', None) is None:", "    s.mdl = Affine(0.7, 0.05)"]
    kind = g.rng.randint(0, 2)
    if kind == 0:
        call = f"{model}({g.texpr()})" if model == "CHAIN" else \
            g.choice([f"{model}({g.texpr()})", f"{model}(acc, scale={g.choice(['0.5', 'float(n)', 'G_SCALE'])})"])
        return lines + [f"acc = {call}"]
    tape, loss, grads, v, gv, lr = (g.fresh(p) for p in ("tape", "loss", "grads", "v", "gv", "lr"))
    lr_value = g.choice(["0.05", "0.1 * 0.5 ** (s.count % 3)", "0.01 * (n + 1)",
                         "0.1 if flag else 0.02"])
    lines += [f"{lr} = {lr_value}",
              f"with tf.GradientTape() as {tape}:",
              f"    {loss} = tf.reduce_mean(tf.square({model}(acc) - x))",
              f"{grads} = {tape}.gradient({loss}, {model}.variables)"]
    if kind == 1:
        lines += [f"for {v}, {gv} in zip({model}.variables, {grads}):",
                  f"    {v}.assign_sub({lr} * {gv})"]
    else:
        lines += [f"{grads}, _ = tf.clip_by_global_norm({grads}, 0.5)",
                  f"for {v}, {gv} in reversed(list(zip({model}.variables, {grads}))):",
                  f"    if {gv} is not None:",
                  f"        {v}.assign({v} - {lr} * {gv})"]
    return lines + [f"acc = acc + tf.cast({loss}, acc.dtype) * 0.1", "s.count += 1"]


@rule(0.6, max_depth=1)
def tf_module(g):
    """A `tf.Module` subclass with a Python step counter in its `__call__`; its
    `trainable_variables` updated in a loop."""
    _helper(g, _MODULE)
    return g.choice([
        [f"acc = MOD({g.texpr()})"],
        ["acc = MOD(acc) * 0.5",
         "for v in MOD.trainable_variables:",
         "    v.assign(v * 0.9 + 0.1)"],
        [f"if MOD.steps % 2 == {g.rng.randint(0, 1)}:",
         "    acc = MOD(acc)",
         "k = k + len(MOD.trainable_variables)"],
    ])


# -- tf.nest, dict comprehensions over tensors ------------------------------------------

@rule(0.8)
def nest_structure(g):
    """Structures of tensors through `tf.nest` and dict comprehensions."""
    st = g.fresh("st")
    return g.choice([
        [f"{st} = {{'a': acc, 'b': (x, {g.texpr()} * 0.5)}}",
         f"{st} = tf.nest.map_structure(lambda t: t * 0.9, {st})",
         f"acc = {st}['a'] + {st}['b'][1]"],
        [f"acc = acc + tf.add_n(tf.nest.flatten({{'p': acc, 'q': [x] + xs}})) * 0.1"],
        [f"{st} = {{key: val * 0.5 for key, val in {{'u': acc, 'v': x}}.items() if key != 'w'}}",
         f"acc = {st}['u'] - {st}['v'] * 0.25"],
        [f"{st} = tf.nest.map_structure(lambda a, b: a + b * 0.5, (acc, [x]), (x, [acc]))",
         f"acc = {st}[0] + {st}[1][0] * 0.1"],
        [f"{st} = tf.nest.pack_sequence_as(('i', 'j'), [acc * 0.5, x])",
         f"acc = {st}[0] + {st}[1] * 0.1"],
        [f"{st} = {{i: tf.reduce_sum(t) for i, t in enumerate(xs)}}",
         f"acc = acc + sum({st}.values(), 0.0) * 0.1",
         f"k = k + len({st})"],
    ])


# -- metric dicts and collections containers ------------------------------------------

_COLLECTIONS = '''\
import collections

BUF = collections.deque(maxlen=3)
LOGS = collections.defaultdict(list)
'''


@rule(0.9, max_depth=1)
def metrics_dict(g):
    """A dict of running metrics (tensors and Python ints) updated in a loop, a replay
    buffer (`deque(maxlen=...)`) of tensors and a `defaultdict(list)` log."""
    m, t = g.fresh("m"), g.fresh("t")
    kind = g.rng.randint(0, 2)
    if kind == 0 or g.graphable:  # (janus runs calls reading a deque/defaultdict plainly: F41)
        return [f"{m} = {{'loss': tf.zeros([], acc.dtype), 'steps': 0}}",
                f"for {t} in xs + [acc]:",
                f"    {m}['loss'] = {m}['loss'] + tf.reduce_mean({t} * {t})",
                f"    {m}['steps'] += 1",
                f"    if {g.cond()}:",
                f"        {m}['skip'] = {m}.get('skip', 0) + 1",
                f"acc = acc + {m}['loss'] / {m}['steps']",
                f"s.d['steps'] = s.d.get('steps', 0) + {m}['steps']"]
    _helper(g, _COLLECTIONS)
    if kind == 1:
        return ["BUF.append(tf.reduce_mean(acc))",
                "acc = acc + tf.cast(tf.add_n(list(BUF)), acc.dtype) * 0.1",
                "if len(BUF) == BUF.maxlen:",
                f"    {g.choice(['BUF.popleft()', 'BUF.clear()', 'k += 1'])}"]
    return [f"LOGS[{g.choice(['flag', 'n % 2', repr('step')])}].append({g.choice(['k', 'len(xs)', 's.count'])})",
            f"acc = acc * (1.0 + 0.1 * len(LOGS))",
            f"k = k + sum(len(v) for v in LOGS.values()) % 3"]


# -- activation tables, lambdas made in loops -------------------------------------------

_ACTS = '''\
ACTS = {"tanh": tf.tanh, "relu": tf.nn.relu, "sig": tf.sigmoid, "id": lambda t: t}
'''


@rule(0.8)
def activation_table(g):
    """A function picked from a dict of functions, or by name from a TF module."""
    _helper(g, _ACTS)
    return [g.choice([
        "acc = ACTS[('tanh', 'relu', 'sig', 'id')[n % 4]](acc)",
        "acc = ACTS['relu' if flag else 'tanh'](acc) * 0.9",
        "acc = getattr(tf.math, 'tanh' if k % 2 else 'sin')(acc)",
        "acc = ACTS.get(s.d.get('act'), tf.identity)(acc) + 0.1",
        "acc = [ACTS[name](acc) for name in sorted(ACTS)][k % 4]",
    ])]


@rule(0.7)
def lambda_loop(g):
    """Lambdas made in a loop (default-argument binding, late binding of the loop
    variable) and `functools.reduce` over the list argument."""
    fns, fn, i = g.fresh("fns"), g.fresh("fn"), g.fresh("i")
    return g.choice([
        [f"{fns} = [lambda t, {i}={i}: t * (0.5 + 0.1 * {i}) for {i} in range(n % 3 + 1)]",
         f"for {fn} in {fns}:", f"    acc = {fn}(acc)"],
        [f"{fns} = [lambda t: t + 0.1 * {i} for {i} in range({g.choice(['2', 'len(xs) + 1'])})]",
         f"acc = {fns}[0](acc) * 0.5"],
        ["acc = functools.reduce(lambda a, b: a * 0.5 + b, xs, acc)"],
        [f"acc = functools.reduce(lambda a, {i}: a + float({i}) * 0.1, range(n), acc)"],
    ])


# -- tensors of data-dependent shape -----------------------------------------------------

@rule(0.8)
def dynamic_shape(g):
    """`tf.boolean_mask` / `tf.unique` / `tf.where` results, whose length depends on the
    values, used in reductions and read as Python ints (`.shape[0]`, `len`)."""
    p = g.fresh("pos")
    head = g.choice([f"{p} = tf.boolean_mask({g.tensor()}, {g.tensor()} > 0)",
                     f"{p} = tf.unique(tf.reshape(tf.round({g.tensor()} * 2.0), [-1]))[0]",
                     f"{p} = tf.gather_nd({g.tensor()}, tf.where({g.tensor()} > 0.2))"])
    in_graph = [[f"out.append(tf.size({p}))"],
                [f"acc = acc + tf.cast(tf.shape({p})[0], acc.dtype) * 0.1"]]
    use = g.choice(in_graph if g.graphable else in_graph + [  # (a static length: eager only)
        [f"k = k + {p}.shape[0]"],
        [f"k = k + len({p})"],
        [f"if {p}.shape[0] > {g.rng.randint(0, 2)}:", "    acc = acc * 0.5"],
        [f"s.hist.append(int(tf.size({p})))"],
    ])
    return [head, f"acc = acc + tf.reduce_sum({p}) * 0.1"] + use


# -- formatting tensors with format specs -------------------------------------------------

@rule(0.6)
def format_spec(g):
    """Format specs applied to tensors (`f'{loss:.3f}'` works on a scalar tensor, raises
    TypeError on others) and to Python numbers."""
    in_graph = ["print(f'loss {tf.reduce_sum(acc):.3f}')",
                "print('{:.1%} done'.format(k / (n + 1)))",
                "print(f'{k:>3}|{s.total:.2e}|{flag!s:>6}')"]
    return [g.choice(in_graph if g.graphable else in_graph + [  # (F42: refused, host reads)
        "print(f'{acc:.2f}')",
        "print('%.2f' % tf.reduce_mean(acc))",
        "print(f'{tf.reduce_max(acc).numpy():+.4f}')",
    ])]


# -- early stopping on host floats ------------------------------------------------------

@rule(0.6, max_depth=1, eager=True)
def early_stopping(g):
    """Early stopping: a host float of the loss compared with the best one kept in a
    dict, a patience counter, an early return."""
    val = g.fresh("val")
    return [f"{val} = float(tf.reduce_mean(acc * acc))",
            f"if {val} < s.d.get('best', float('inf')) - 1e-3:",
            f"    s.d['best'] = {val}",
            "    s.d['wait'] = 0",
            "else:",
            "    s.d['wait'] = s.d.get('wait', 0) + 1",
            f"if s.d['wait'] > {g.rng.randint(1, 3)}:",
            f"    return {g.choice(['acc', '(acc, s.count)', '(acc, k)'])}"]


# -- class attributes, classmethods, staticmethods ---------------------------------------

_CLASS_MEMBERS = '''\
    N = 0

    @classmethod
    def bump(cls):
        cls.N += 1
        return cls.N

    @staticmethod
    def shrink(a, c=0.5):
        return a * c
'''


@rule(0.6)
def class_members(g):
    """A class attribute counted through a classmethod (copied to the state object so the
    heap comparison sees it) and a staticmethod called on the class and the instance."""
    _method(g, _CLASS_MEMBERS)
    return g.choice([
        ["k = k + State.bump() % 3", "s.seen_n = State.N"],
        [f"acc = s.shrink({g.texpr()})"],
        ["acc = State.shrink(acc, c=float(type(s).N % 3) + 0.5)"],
        ["if type(s).bump() > 2:", "    acc = acc * 0.5", "s.seen_n = State.N"],
    ])


# -- try/except inside loops -------------------------------------------------------------

@rule(0.6, max_depth=1, eager=True)
def try_in_loop(g):
    """`try/except` inside a loop: a raise on a tensor test skips an item (`continue`),
    the exception's message stored; an error of Python's own (ZeroDivisionError)."""
    t, e = g.fresh("t"), g.fresh("e")
    if g.chance(0.5):
        return [f"for {t} in xs + [acc]:",
                "    try:",
                f"        if tf.reduce_max({t}) > {g.choice(['0.3', '0.8'])}:",
                "            raise ArithmeticError('big')",
                f"        acc = acc + {t} * 0.5",
                f"    except ArithmeticError as {e}:",
                f"        s.hist.append(str({e}))",
                "        continue",
                "    k += 1"]
    i = g.fresh("i")
    return [f"for {i} in range(3):",
            "    try:",
            f"        acc = acc * (1.0 / ({i} - n % 3))",
            "    except ZeroDivisionError:",
            "        s.count += 1",
            "        break"]


# -- generators consumed partly -----------------------------------------------------------

_PAIRS = '''\
def pairs(items, s):
    for i, it in enumerate(items):
        s.hist.append(i)
        yield i, it * 0.5
'''


@rule(0.5, max_depth=1, eager=True)
def partial_generator(g):
    """A generator with heap effects consumed partly: `zip` with a range (which pulls
    one item more), `next` with a default."""
    _helper(g, _PAIRS)
    i, b, it = g.fresh("i"), g.fresh("b"), g.fresh("it")
    return g.choice([
        [f"for ({i}, {b}), _ in zip(pairs(xs + [acc], s), range({g.choice(['1', '2'])})):",
         f"    acc = acc + {b} * float({i} + 1)"],
        [f"{it} = next(pairs(xs, s), None)",
         f"if {it} is not None:",
         f"    acc = acc + {it}[1]"],
    ])


# -- Python iteration helpers over Python data ---------------------------------------

@rule(0.6)
def python_iteration(g):
    """`sorted` with a key, `reversed(list(enumerate(...)))`, `zip` of Python data with
    tensors, over lists of known length."""
    i, t = g.fresh("i"), g.fresh("t")
    return g.choice([
        [f"for {i} in sorted(range(len(xs)), key=lambda j: -j):",
         f"    acc = acc + xs[{i}] * 0.1 * ({i} + 1)"],
        [f"for {i}, {t} in reversed(list(enumerate(xs))):",
         f"    acc = acc * 0.5 + {t} * float({i})"],
        [f"for {i}, {t} in zip(sorted(ENV.values(), reverse=True), [acc, x]):",
         f"    acc = acc + {t} * {i} * 0.1"],
        [f"for {i} in sorted(s.d, key=str):",
         f"    k = k + len(str({i}))"],
    ])



# -- TF library objects in globals: random generators, datasets, metrics, tf.function ---

_RNG = "RNG = tf.random.Generator.from_seed(11)\n"


@rule(0.6, max_depth=1)
def random_generator(g):
    """Draws from a module-level `tf.random.Generator` (its state moves on every draw, in
    graphs as in eager code; F43), maybe before a tensor test that flips with the draw."""
    _helper(g, _RNG)
    draw = g.choice(["RNG.normal(tf.shape(acc), dtype=acc.dtype) * 0.1",
                     "RNG.uniform(tf.shape(acc), -1.0, 1.0, dtype=acc.dtype)",
                     "tf.cast(RNG.uniform([], 0, 3, dtype=tf.int32), acc.dtype)"])
    lines = [f"acc = acc + {draw}"]
    if g.chance(0.6):
        lines += ["if tf.reduce_sum(acc) > 0.0:",
                  f"    {g.choice(['s.count += 1', 'acc = acc * 0.5', 'k += 1'])}"]
    return lines


_DATA = ("DS = tf.data.Dataset.from_tensor_slices(tf.range(6, dtype=tf.float32)).batch(2)\n")


@rule(0.4, max_depth=1, eager=True)
def data_loop(g):
    """A loop over a module-level `tf.data` dataset (F44: refused in graphs)."""
    _helper(g, _DATA)
    b = g.fresh("b")
    return [f"for {b} in DS.take({g.choice(['n % 3 + 1', '2', 'len(xs) + 1'])}):",
            f"    acc = acc + tf.cast(tf.reduce_sum({b}), acc.dtype) * 0.1",
            "    s.count += 1"]


_METRIC = "MEAN = tf.keras.metrics.Mean()\n"


@rule(0.5, max_depth=1)
def keras_metric(g):
    """A Keras metric updated, read and reset (its variables change in the graph)."""
    _helper(g, _METRIC)
    lines = ["MEAN.update_state(tf.reduce_sum(acc * acc))"]
    if g.chance(0.5):
        t = g.fresh("t")
        lines += [f"for {t} in xs:", f"    MEAN.update_state(tf.reduce_mean({t}))"]
    lines.append("acc = acc + tf.cast(MEAN.result(), acc.dtype) * 0.1")
    if g.chance(0.5):
        lines += [f"if {g.cond()}:", "    MEAN.reset_state()"]
    return lines


_TF_FUNCTION = """\
@tf.function
def tstep(a, c):
    return a * c + 1.0
"""


@rule(0.5)
def tf_function_helper(g):
    """A helper the program decorated with `tf.function` itself, called with tensors."""
    _helper(g, _TF_FUNCTION)
    return [f"acc = tstep({g.texpr()}, tf.cast({g.choice(['G_SCALE', '0.5', 'V0'])}, acc.dtype))"]


# -- Python objects with hidden state: iterators on the heap, cached functions --------

_SCHEDULES = """\
import itertools

STEP = itertools.count()
LRS = itertools.cycle([0.1, 0.2, 0.3])


def _halving():
    v = 1.0
    while True:
        yield v
        v = v * 0.5


SCHED = _halving()


@functools.lru_cache(maxsize=None)
def table(m):
    return tf.constant(float(m) + 1.0)
"""


@rule(0.5, max_depth=1, eager=True)
def python_state_objects(g):
    """Iterators kept on the heap and advanced once per call (`next` of an
    `itertools.count`/`cycle` or of a generator object: a schedule), and a
    `functools.lru_cache` helper returning a tensor (F45, F46: refused in graphs)."""
    _helper(g, _SCHEDULES)
    return [g.choice([
        "acc = acc * next(LRS)",
        "acc = acc + float(next(STEP)) * 0.01",
        "acc = acc * next(SCHED)",
        "acc = acc * tf.cast(table(n % 3), acc.dtype)",
    ])]
