"""Generator rules (v39) for numpy's float reductions and Python's sum() in a graph
(janus/graphgen/float_sums.py, reductions.py): `a.sum()`, `a.mean()`, `a.var()`,
`a.std(ddof=...)` and `np.sum/np.mean/np.var/np.std(a)` of a 1-D float array whose
length follows x's shape (fed to the segment after a `.numpy()` break), `(a - a.mean()) /
(a.std() + EPS)`; an episode loop that stops on a tensor test appending Python floats and
ints (a list whose length only the graph knows), then `np.array(rewards, dtype=...)`,
its normalized returns and `sum(rewards)`. Results kept as `repr` text in `s.hist`, so
they compare bit for bit. v45: arrays longer than numpy's 128-item block (their length
varies: the graph's `tf.cond` takes either path), arrays and rewards at the ends of the
fast range check (2**-500 / 2**500, float32 2**-60 / 2**60: inside, arithmetic on
arrays and sums are checked by their items' range only), array-array arithmetic before
the reduction, and `sum()` from a -0.0, a large or a subnormal start.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_REDUCE = ["{a}.sum()", "{a}.mean()", "{a}.var()", "{a}.std()", "{a}.std(ddof=1)",
           "np.sum({a})", "np.mean({a})", "np.var({a})", "np.std({a})", "{a}.mean(axis=0)",
           "{a}.sum() * 0.5 - {a}.mean()", "({a} * {a}).sum()", "({a} - {a}.mean()).sum()",
           "({a} * 3.0 - {a}).sum()", "({a} / ({a} * {a} + 1.0)).mean()",
           "(({a} + 1.0) * {a}).std()", "({a} * 1e-300).sum()"]
_ARRAYS = ["tf.reshape(tf.cast(x, tf.float32), [-1])", "tf.reshape(tf.cast(x, tf.float64), [-1])",
           "tf.reshape(tf.cast(acc, tf.float32), [-1]) * 1e-20",
           "tf.round(tf.reshape(tf.cast(x, tf.float32), [-1]) * 4.0)",
           "tf.concat([tf.reshape(tf.cast(x, tf.float32), [-1]), tf.ones([n % 3], tf.float32)], 0)",
           # (v45: longer than one block, the length varying across calls)
           "tf.reshape(tf.tile(tf.cast(x, tf.float32), [n * 40 + 1]), [-1])",
           "tf.reshape(tf.tile(tf.cast(x, tf.float64), [130 - n]), [-1]) * 0.5",
           # (v45: at the ends of the fast range check)
           "tf.reshape(tf.cast(x, tf.float64), [-1]) * 2.0 ** -499",
           "tf.reshape(tf.cast(x, tf.float64), [-1]) * 3e150",
           "tf.reshape(tf.cast(x, tf.float32), [-1]) * 2.0 ** 59",
           "tf.reshape(tf.cast(x, tf.float32), [-1]) * 2.0 ** -59"]


@rule(0.6, eager=True)
def numpy_reductions(g):
    """A fed 1-D float array (its length follows x's shape, or n) reduced as numpy does;
    the scalars' reprs and types kept, the normalized array handed back to TF."""
    a, m, z = g.fresh("na"), g.fresh("nm"), g.fresh("nz")
    lines = [f"{a} = ({g.choice(_ARRAYS)}).numpy()"]
    if g.chance(0.3):
        lines.append(f"{a} = {a}[:{g.choice(['n % 4', 'n + 1', '3'])}]")
    lines += [f"{m} = {g.choice(_REDUCE).format(a=a)}",
              f"s.hist.append(repr({m}) + type({m}).__name__)"]
    if g.chance(0.6):
        eps = g.choice(["1e-7", "EPS_F32", "1.0"])
        if not any(h.startswith("EPS_F32") for h in g.helpers):
            g.helpers.append("EPS_F32 = float(np.finfo(np.float32).eps)\n")
        lines += [f"{z} = ({a} - {a}.mean()) / ({a}.std() + {eps})",
                  f"acc = acc + tf.cast(tf.reduce_sum({z}), acc.dtype) * 0.01"]
    return lines


@rule(0.6, max_depth=1)
def episode_sums(g):
    """Python floats (and ints) appended in a loop that breaks on a tensor test; numpy's
    array of them (float32 or float64), normalized returns, and Python's `sum`."""
    i, rw, ct, r = g.fresh("ei"), g.fresh("rw"), g.fresh("ct"), g.fresh("r")
    ret, v, c = g.fresh("ret"), g.fresh("v"), g.fresh("c")
    read = g.choice(["float(tf.reduce_sum(tf.cast(x, tf.float64)))",
                     "float(tf.reduce_mean(tf.cast(acc, tf.float32)))",
                     "float(tf.reduce_max(tf.cast(x, tf.float32)))"])
    reward = g.choice([f"{v} * 0.5 + {i}", f"{v} + 0.25 * {i}", f"{v} * 1e-30",
                       f"float({i}) - 1.5", f"{v} * {v} - 1e300",
                       f"{v} * 2.0 ** -499", f"-0.0 * {v}", f"{v} * 3e150 + {i}"])
    lines = [f"{rw}, {ct} = [], []",
             f"for {i} in range({g.choice(['6', 'n + 3', 'n % 5 + 1'])}):",
             f"    {v} = {read}",  # (a value read kept in the graph: transform/breaks.py)
             f"    {r} = {reward}",
             f"    {rw}.append({r})",
             f"    {c} = int(tf.argmax(tf.reshape(tf.cast(x, tf.float32), [-1])))",
             f"    {ct}.append({c} + {i})",
             f"    if {g.choice([f'{r} > 1.0', f'tf.reduce_sum(acc) > {i}', f'{r} < -0.5'])}:",
             "        break",
             f"s.hist.append(repr(sum({rw})) + repr(sum({ct})))"]
    dtype = g.choice([", dtype=np.float32", "", ", dtype=np.float64"])
    lines += [f"{ret} = np.array({rw}{dtype})",
              f"{ret} = ({ret} - {ret}.mean()) / ({ret}.std() + {g.choice(['1e-7', '1.0'])})",
              f"s.hist.append(repr({ret}.sum()) + repr(sum({rw}, "
              f"{g.choice(['0.5', '-0.0', '2.0 ** 499', '1e-310', '-1e-300'])})))",
              f"acc = acc + tf.cast(tf.reduce_sum({ret}), acc.dtype) * 0.01"]
    return lines
