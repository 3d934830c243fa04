"""Generator rules (v73) from session 27: a graph whose own ops raise as plain Python does
on most calls (an assertion on the call's values), which janus runs plainly after a few
such calls and as a graph again once it stops raising (graphgen/plain_trial.py).

Registered in `rules.RULES` on import (the generator imports this module last).
"""
from __future__ import annotations

from tests.fuzz.rules import rule


@rule(0.5, max_depth=1)
def raising_often(g):
    """(v73) An assertion of TF's that fails on most calls, or on the calls of one flag or
    count, after heap writes: every call's exception, and the heap it leaves, are plain
    Python's, whichever way janus runs it (a graph, then plainly while it keeps raising)."""
    bound = g.choice(["-1.0", "100.0 if flag else -1.0", "-1.0 if n > 1 else 100.0",
                      "100.0 if len(xs) == 2 else -1.0"])
    check = g.choice([
        f"tf.debugging.assert_less(tf.reduce_max(acc), tf.cast({bound}, acc.dtype), "
        "message='over the bound')",
        f"tf.debugging.assert_greater(tf.cast({bound}, acc.dtype), tf.reduce_min(acc))",
        f"tf.debugging.Assert(tf.reduce_all(acc < tf.cast({bound}, acc.dtype)), [k])",
    ])
    effect = g.choice(["s.count += 1", "G_LIST.append(k)", "s.total = s.total + 0.5",
                       "V0.assign_add(0.25)"])
    return [effect, check, f"acc = acc * {g.choice(['0.5', '2.0'])}"]


@rule(0.6, max_depth=2)
def grown_list_compared(g):
    """(v73) A list of ints a loop grows until a tensor test stops it (its length varies
    from call to call), compared (==, !=) with a list of ints or a tuple, and the answer
    used as a test and as a value (graphgen/values.DynamicList.__eq__)."""
    ids, t = g.fresh("ids"), g.fresh("t")
    other = g.choice(["[0, 1]", "[0]", "[]", "list(range(n))", "[0, 1, 2, 3]", "(0, 1)",
                      "[True, 1]", "[k % 3]", f"{ids}[:1]"])
    op = g.choice(["==", "!="])
    test = g.choice([f"{ids} {op} {other}", f"{other} {op} {ids}"])
    use = g.choice([[f"if {test}:", "    s.count += 1"],
                    [f"k = k + int({test})"],
                    [f"out.append({test})"]])
    return [f"{ids} = []", f"for {t} in range({g.choice(['4', 'n + 1', '3'])}):",
            f"    acc = acc * {g.choice(['1.5', '0.9', '1.2'])} + 0.25",
            f"    if {g.tcond()}:", "        break",
            f"    {ids}.append({g.choice([t, f'{t} % 2', f'{t} + k'])})"] + use


@rule(0.6, max_depth=2)
def branch_attribute_writes(g):
    """(v73) A tensor test whose outcome changes from call to call writing attributes of
    heap objects, numbers and tensors, in one branch or both (graphgen/cond_heap.py: the
    tf.cond outputs them)."""
    then = g.choice([["s.count += 1"], ["s.count = s.count + len(xs)", "s.h = s.h + 1.0"],
                     ["s.total = s.total * 0.5"], ["s.h = tf.reduce_sum(acc) + s.h"]])
    lines = [f"if {g.tcond()}:"] + ["    " + line for line in then]
    if g.chance(0.6):
        other = g.choice([["s.total = s.total + 0.25"], ["s.count -= 1"],
                          ["s.h = s.h * 0.5"], ["s.total = 1"]])
        lines += ["else:"] + ["    " + line for line in other]
    return lines


_KERAS_PARTS = '''import keras

KDENSE = keras.layers.Dense(1, kernel_initializer="ones")
KDENSE.build((None, 2))
EMA_V = tf.Variable([1.0, 2.0])
EMA_OPT = keras.optimizers.SGD(0.1, use_ema=True, ema_overwrite_frequency=2)


@JIT
def kernel_scale(w, t):
    return tf.reduce_sum(w) * tf.reduce_sum(t)
'''


@rule(0.5, max_depth=2)
def keras_library_state(g):
    """(v73) Keras in ways a probe round found wrong: a Keras variable as an argument of a
    jitted helper (the profiler failed on its str dtype); a layer built in the step (Keras
    draws its seed from Python's `random` and numbers its name: host_state.py); an
    optimizer overwriting variables with their moving average inside its own tf.cond (a
    shadow value out of scope: an internal error)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _KERAS_PARTS)
    t = g.fresh("tp")
    return g.choice([
        ["acc = acc + kernel_scale(KDENSE.kernel, acc) * 0.01"],
        [f"{t} = keras.layers.{g.choice(['Dropout(0.0)', 'Dense(1, use_bias=False)'])}",
         f"acc = acc + tf.reduce_sum({t}(tf.reshape(acc, [1, -1]))) * 0.0",
         f"s.hist.append({t}.name.split('_')[0])"],
        [f"with tf.GradientTape() as {t}:",
         "    ema_loss = tf.reduce_sum(EMA_V * tf.reduce_mean(acc))",
         f"EMA_OPT.apply_gradients(zip({t}.gradient(ema_loss, [EMA_V]), [EMA_V]))",
         "acc = acc + tf.reduce_sum(EMA_V) * 0.1"],
    ])


@rule(0.5, max_depth=2)
def static_shape_calls(g):
    """(v73) `keras.ops.shape(t)[i]`, `t.get_shape()`, `int_shape` of a tensor whose size
    follows a number janus feeds: Python ints eagerly (dynamic_sizes.shape_call)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, "import keras\n")
    w = g.fresh("rep")
    size = g.choice([f"keras.ops.shape({w})[0]", f"{w}.get_shape()[0]",
                     f"tf.keras.backend.int_shape({w})[0]", f"len(keras.ops.shape({w}))"])
    return [f"{w} = tf.repeat(tf.reshape(acc, [-1])[:1], n + 1)",
            g.choice([f"k = k + {size}", f"out.append({size})",
                      f"acc = acc + tf.cast({size}, acc.dtype)"])]


_RECORDS = '''import collections
import dataclasses
import operator

Pair = collections.namedtuple("Pair", ["a", "b"])
G_PAIRS = [Pair(tf.constant(0.5), 1)]


@dataclasses.dataclass
class Hyper:
    lr: float = 0.5
    scale: float = 2.0


G_HYPER = Hyper()
'''


@rule(0.6, max_depth=2)
def heap_records(g):
    """(v73) A namedtuple read from the heap and unpacked (`a, b = pair`: C code reads its
    items), a dataclass read by `dataclasses.asdict` or an `attrgetter`, and both changed
    from call to call (their items were the trace's: F198)."""
    _helper_records(g)
    a, b = g.fresh("pa"), g.fresh("pb")
    return g.choice([
        [f"{a}, {b} = G_PAIRS[-1]",
         f"acc = acc + tf.cast({a}, acc.dtype) * 0.1",
         f"k = k + {b}",
         f"G_PAIRS.append(Pair(tf.reduce_sum(acc) * 0.5, {g.choice(['k % 3', 'n', '1'])}))"],
        [f"if {g.pcond()}:", "    G_HYPER.lr = G_HYPER.lr * 0.5",
         "acc = acc * " + g.choice(["dataclasses.asdict(G_HYPER)['lr']",
                                    "operator.attrgetter('scale')(G_HYPER)",
                                    "dataclasses.astuple(G_HYPER)[0]"])],
        [f"{a} = max([Pair(acc, 1), Pair(acc * 2.0, 2)], key=operator.itemgetter(1))",
         f"acc = {a}.a + {a}[1]"],
    ])


def _helper_records(g):
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _RECORDS)


@rule(0.5, max_depth=2)
def one_element_tests(g):
    """(v73) `if`/`while`/`assert`/`any` on a tensor of one element but rank 1 or 2 (its
    truth is its value in Python; janus's trace raised its own error)."""
    red, shape = g.choice(["sum", "max", "mean"]), g.choice(["1", "1, 1"])
    t = f"tf.reshape(tf.reduce_{red}(acc), [{shape}])"
    c = g.choice(["-0.5", "0.5", "2.0"])
    return g.choice([
        [f"if {t} > {c}:", "    acc = acc * 0.5", "    k += 1"],
        [f"while {t} < {c} and k < 4:", "    acc = acc + 1.0", "    k += 1"],
        [f"assert {t} > -1e6, 'never'"],
        [f"out.append(any(v > {c} for v in [{t}, {t} * 2.0]))"],
    ])


_LAMBDAS = '''ACT = lambda t: t * 2.0 - 0.5  # noqa: E731 (a module-level lambda: F203)
DS = tf.data.Dataset.from_tensor_slices(tf.range(6, dtype=tf.float32)).batch(2)
'''


@rule(0.4, max_depth=1)
def lambdas_handed_over(g):
    """(v73) A module-level lambda the function calls (its record must not claim to be
    portable: F203); a lambda of the function's handed to `tf.data`'s `map` (AutoGraph
    must not be asked to convert it: F204)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _LAMBDAS)
    return g.choice([
        ["acc = ACT(acc)"],
        ["acc = acc + DS.map(lambda b: b * tf.reduce_mean(acc)).reduce("
         "0.0, lambda a, b: a + tf.reduce_sum(b)) * 0.01"],
    ])


_LIBRARY_OBJECTS = '''import argparse
import decimal
import threading
import types as _types

G_STOP = threading.Event()
G_ARGS = argparse.Namespace(lr=0.5, steps=2)
G_NS = _types.SimpleNamespace(scale=1.5)
G_PRICE = [decimal.Decimal("1.5")]


class Scaler:
    def __init__(self):
        self.k = 1.0

    def __call__(self, t):
        return t * self.k


G_SCALER = Scaler()
'''


@rule(0.6, max_depth=2)
def library_objects(g):
    """(v73) Library objects' state read by their own code (`G_STOP.is_set()`,
    `float(Decimal)`, `repr(args)`), a config namespace's attributes, a callable object
    `map` calls, each changed by the program on some calls (F207-F210)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _LIBRARY_OBJECTS)
    return g.choice([
        [f"if {g.pcond()}:", "    G_STOP.set()", "else:", "    G_STOP.clear()",
         "if G_STOP.is_set():", "    acc = acc * 0.5"],
        [f"G_PRICE[0] = decimal.Decimal({g.choice(['n', 'k % 3', '2'])})",
         "acc = acc * float(G_PRICE[0])"],
        [f"G_ARGS.lr = G_ARGS.lr * {g.choice(['0.5', '1.0', '2.0'])}",
         "acc = acc * G_ARGS.lr + G_NS.scale",
         f"s.hist.append({g.choice(['repr(G_ARGS)', 'G_ARGS.steps', 'str(G_NS)'])})"],
        [f"G_SCALER.k = {g.choice(['G_SCALER.k + 0.5', 'float(n)', '1.0'])}",
         f"acc = {g.choice(['list(map(G_SCALER, [acc]))[0]', 'tf.nest.map_structure(G_SCALER, [acc])[0]'])}"],
    ])


_MODULE_SETTINGS = '''import sys as _sys

_THIS = _sys.modules[__name__]


class Knobs:
    gain = 1.0
'''


@rule(0.6, max_depth=2)
def module_settings(g):
    """(v73) The program's module attributes read as `module.NAME` (the module reached
    through `sys.modules`), a class's read through `type(obj)`, both changed by the
    program between calls (F208)."""
    from tests.fuzz.rules_more9 import _helper
    _helper(g, _MODULE_SETTINGS)
    return g.choice([
        [f"if {g.pcond()}:", "    _THIS.G_SCALE = _THIS.G_SCALE * 0.5",
         "acc = acc * _THIS.G_SCALE"],
        [f"if {g.pcond()}:", "    Knobs.gain = Knobs.gain + 0.5",
         "acc = acc * type(Knobs()).gain"],
    ])
