"""Generator rules (v71) from the zoo's third round (p61, p65-p70): `tf.TensorArray`s in
loops that stop on a tensor test and the eager TensorArray semantics a graph lacks (F167),
`functools.partial` of user helpers (F168), helpers behind `functools.wraps`, `match`
statements (F169), asserts formatting tensors and kept IndexedSlices (F170).

Registered in `rules.RULES` on import (the generator imports this module last).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper


@rule(0.6, max_depth=1)
def tensor_array_exit(g):
    """(v71) A TensorArray written in a loop that stops on a tensor test (`while <tensor>
    and t < n:`, `if <tensor>: break` before or after the write): janus refused such a
    loop (a TensorArray was "a Python value") and ran it split; it is now carried as its
    flow by the loop's one tf.while_loop."""
    ta, t = g.fresh("ta"), g.fresh("t")
    clear = g.choice(["", "", ", clear_after_read=False"])
    lines = [f"{ta} = tf.TensorArray(acc.dtype, size=0, dynamic_size=True{clear})"]
    write = f"{ta} = {ta}.write({t}, acc)"
    step = f"acc = {g.choice(['acc * 0.5 + 0.25', 'tf.tanh(acc) + 0.5', 'acc + 1.0'])}"
    if g.chance(0.5):
        lines += [f"{t} = 0",
                  f"while tf.reduce_{g.choice(['sum', 'max', 'mean'])}(acc) < "
                  f"{g.choice(['1.0', '2.5', '4.0'])} and {t} < "
                  f"{g.choice(['n % 4 + 2', '3', 'len(xs) + 1'])}:",
                  f"    {step}", f"    {write}", f"    {t} += 1"]
    else:
        test = [f"    if {g.tcond()}:", "        break"]
        body = [f"    {write}"] + test if g.chance(0.5) else test + [f"    {write}"]
        lines += [f"for {t} in range({g.choice(['n % 3 + 2', '4', 'len(xs) + 1'])}):",
                  f"    {step}"] + body
    if clear and g.chance(0.6):
        lines += [f"if {ta}.size() > 0:",
                  f"    acc = acc + {ta}.read({ta}.size() - 1) * 0.25"]
    lines.append(g.choice([
        f"k = k + int({ta}.size())",
        f"out.append({ta}.size())",
        f"acc = acc + tf.reduce_sum({ta}.stack()) * 0.01" if g.chance(0.5) else
        f"acc = acc + tf.reduce_sum({ta}.concat()) * 0.01"]))
    return lines


@rule(0.4, max_depth=1)
def tensor_array_eager(g):
    """(v71, F167) What only an eager TensorArray does: one object every write changes
    (`ta.write(i, x)` not rebound), a read that clears its item (`stack()` gives zeros
    there; a second read raises). A graph returned the items anyway."""
    ta, i = g.fresh("ta"), g.fresh("i")
    size = g.choice(["2", "n % 2 + 2"])
    lines = [f"{ta} = tf.TensorArray(acc.dtype, size={size}"
             f"{g.choice(['', ', clear_after_read=False'])})"]
    if g.chance(0.5):
        lines += [f"for {i} in range({size}):", f"    {ta}.write({i}, acc * float({i}))"]
    else:
        lines += [f"{ta} = {ta}.write(0, acc).write(1, {g.texpr()})"]
    if g.chance(0.6):
        lines.append(f"acc = acc + {ta}.read({g.choice(['0', '1'])})")
    if g.chance(0.3):
        lines.append(f"acc = acc - {ta}.read(0) * 0.5")
    lines.append(f"acc = acc + tf.reduce_mean({ta}.stack(), axis=0)")
    return lines


_SCALED = '''def scaled_step(s, t, by=1.0, *, power=1):
    s.count += 1
    s.total = s.total + by
    return t * (G_SCALE * by) ** power


STEP_P = functools.partial(scaled_step, by=0.5)
STEP_PP = functools.partial(functools.partial(scaled_step, power=2), by=0.25)
'''


@rule(0.5, max_depth=2)
def partial_helper(g):
    """(v71, F168) A `functools.partial` of a helper that writes the heap and reads a
    global, made at module level (also a partial of a partial) or in the function: it ran
    unconverted while tracing (its writes once, at trace time; `G_SCALE` baked in)."""
    _helper(g, _SCALED)
    call = g.choice(["STEP_P(s, acc)", "STEP_PP(s, acc)",
                     "functools.partial(scaled_step, s, power=2)(acc, by=float(n % 2 + 1))",
                     "STEP_P(s, acc, power=n % 2 + 1)"])
    lines = []
    if g.chance(0.3):
        lines.append(f"STEP_P.keywords['by'] = {g.choice(['0.5', 'float(n % 3) * 0.5'])}")
    return lines + [f"acc = {call} * 0.5 + acc * 0.5"]


_COUNTED = '''def counted(fn):
    @functools.wraps(fn)
    def wrapper(s, *args, **kwargs):
        s.d["calls"] = s.d.get("calls", 0) + 1
        return fn(*args, **kwargs)
    return wrapper


@counted
def half_tanh(t, scale=0.5):
    return tf.tanh(t) * scale
'''


@rule(0.5, max_depth=2)
def wrapped_helper(g):
    """(v71) A helper behind the user's `functools.wraps` decorator (a call counter):
    janus read its source through `__wrapped__` and ran the caller eagerly."""
    _helper(g, _COUNTED)
    return [f"acc = half_tanh(s, {g.texpr()}{g.choice(['', ', scale=G_SCALE'])}) + acc * 0.5"]


@rule(0.5, max_depth=2)
def match_statement(g):
    """(v71, F169) `match` on Python values with captures (`case (tag, m) if m > 1:`,
    `case {"k": kk, **rest}:`): the generated source did not render (astunparse), and
    captures were taken for globals."""
    m, kk, rest, tag = (g.fresh(p) for p in ("m", "kk", "rest", "tag"))
    subject = g.choice(["('a', n) if flag else {'k': k, 'n': n}", "[n, k, len(xs)]",
                        "{'k': k} if n % 2 else ('bb', k)"])
    return [f"match {subject}:",
            f"    case (str() as {tag}, int({m})) if {m} > 1:",
            f"        acc = acc * 0.5 + float({m})",
            f"        k = k + len({tag})",
            f"    case {{'k': {kk}, **{rest}}}:",
            f"        acc = acc + float({kk}) + len({rest})",
            f"    case [{m}, *{rest}]:",
            f"        k = k + {m} + len({rest})",
            "    case _:",
            "        acc = acc - 0.5"]


@rule(0.5, max_depth=2)
def assert_formatted(g):
    """(v71, F170) A failing `assert` on a tensor whose message formats a tensor: the
    trace's exception made janus fail reading its message (an internal error)."""
    bound = g.choice(["1.5", "3.0", "20.0"])
    return [f"assert tf.reduce_max(tf.abs(acc)) < {bound}, "
            f"f'acc too big: {{tf.reduce_max(acc):.3f}} at n={{n}}'"]


_EMB = '''EMB = tf.Variable(tf.reshape(tf.range(8.0), [4, 2]))
'''


@rule(0.4, max_depth=1)
def sparse_gradient_kept(g):
    """(v71, F170) A gather's gradient (`tf.IndexedSlices`) kept on the heap across
    calls: the next trace asked its eager parts for `.op` (an internal error)."""
    _helper(g, _EMB)
    tape, loss, grad = g.fresh("st"), g.fresh("sl"), g.fresh("sg")
    return [f"with tf.GradientTape() as {tape}:",
            f"    {loss} = tf.reduce_sum(tf.gather(EMB, [n % 4, {g.choice(['1', 'k % 4'])}]) ** 2)",
            f"{grad} = {tape}.gradient({loss}, EMB)",
            f"s.d.setdefault('sparse', []).append({grad})",
            f"acc = acc + tf.cast(tf.reduce_sum({grad}.values), acc.dtype) * 0.01"]


_HANDLES = '''VS = tf.Variable(tf.zeros([4]))
OPT1 = tf.compat.v1.train.GradientDescentOptimizer(0.25)
GEN = tf.random.Generator.from_seed(3)
'''


@rule(0.4, max_depth=1)
def handle_write(g):
    """(v71) Library ops that use a variable through its handle next to janus's deferred
    writes: a v1 optimizer's step, `tf.compat.v1.scatter_add`, a Generator's draw after
    its reset, each before or after a method write and a tensor test (wrong variables:
    the deferred copy overwrote the op's write, or a failed guard's rerun applied it
    twice)."""
    _helper(g, _HANDLES)
    lines = []
    if g.chance(0.5):
        lines.append(g.choice(["VS.assign_sub(0.1 * VS)",
                               "VS.scatter_nd_update([[n % 4]], [0.5])"]))
    lines.append(g.choice([
        "OPT1.apply_gradients([(tf.ones([4]) * 0.5, VS)])",
        "tf.compat.v1.scatter_add(VS, [n % 4], [1.0])",
        "GEN.reset_from_seed(n % 3)",
    ]))
    if g.chance(0.5):
        lines += [f"if {g.tcond()}:", "    k = k + 1"]
    lines.append(g.choice([
        "acc = acc + tf.cast(tf.reduce_sum(VS), acc.dtype) * 0.01",
        "acc = acc + tf.cast(tf.reduce_sum(GEN.normal([2])), acc.dtype) * 0.01"]))
    return lines


@rule(0.5, max_depth=2)
def truth_fold(g):
    """(v71) `any(...)`/`all(...)` over tensor tests (a finite check of every gradient):
    Python asks each item's truth in C, which a symbolic tensor refuses; janus gave up on
    the function (graphgen/truth_folds.py). Python items that decide early, and the bool
    kept (a Python bool after the run)."""
    fold = g.choice(["all", "any"])
    items = g.choice(["tf.reduce_all(tf.math.is_finite(t)) for t in [acc, x]",
                      f"[flag, {g.tcond()}, {g.tcond()}]",
                      f"{g.tcond()} for _ in range(n % 3)",
                      f"[{g.tcond()}, n > 1]"])
    call = f"{fold}({items})"
    if g.chance(0.5):
        return [f"if {call}:", f"    acc = acc * {g.choice(['0.5', '-1.0'])}",
                "else:", "    k = k + 1"]
    return [f"out.append({call})"]


_QUEUE = '''import bisect
import enum
import heapq
import logging
import operator

LOGGER = logging.getLogger("janus-fuzz")


class Phase(enum.Enum):
    WARM = 1
    MAIN = 2


class Tally:
    total = 0
'''


@rule(0.5, max_depth=2)
def function_writes(g):
    """(v71, F173-F176) The heap changed by functions, not methods or statements
    (`heapq.heappush(s.hist, ...)`, `bisect.insort`, `operator.setitem`, `list.append(s.hist,
    ...)`: lost after each graph), a class attribute changed then read through an instance,
    a logger's record, a dict keyed by an Enum member."""
    _helper(g, _QUEUE)
    return g.choice([
        ["heapq.heappush(s.hist, float(n % 4))", "k = k + int(s.hist[0] if s.hist else 0)"],
        [f"bisect.insort(s.hist, {g.choice(['n', 'k % 3', 'len(xs)'])})",
         "acc = acc + float(len(s.hist) % 3)"],
        ["operator.setitem(s.d, 'op', s.d.get('op', 0) + 1)", "k = k + s.d['op']"],
        ["list.append(s.hist, n)", "s.hist.__iadd__([k])", "k = k + len(s.hist)"],
        ["Tally.total += 1", "k = k + Tally().total % 5"],
        ["LOGGER.info('step %d', n)", "acc = acc * 0.5"],
        ["s.d[Phase.WARM if flag else Phase.MAIN] = s.d.get(Phase.MAIN, 0) + 1",
         "k = k + s.d.get(Phase.WARM, 0)"],
    ])
