"""Generator rules (session 39) for what the second round of researchers' programs did
(tests/e2e/unseen/p30..): `min(a, b)` / `max(a, b)` of a scalar tensor and a number or
another tensor (F483: `best = min(best, loss)`, `min(loss, cap)`; the trace asked the
symbolic comparison's truth and janus ran the whole function eagerly from then on), in
either order, stored on the heap, returned, tested, or fed on into tensor work; also a
shadowed `min` (a helper of the program's own, called as it is) and operands Python
cannot compare (a TypeError as Python raises it); and `math` functions of a scalar tensor
(F484: `math.sqrt(loss)`, `math.isnan(loss)`: Python's implicit `float(t)`; the trace
raised TypeError and janus ran the whole function eagerly); and a helper doing what a
graph refuses (`v = v.numpy()` under `hasattr`, a `.numpy()` of a vector summed) called
from the step between tensor work (F485: located at the calling line, the split breaks
there only; before, the step ran eagerly whole).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_SCALARS = ["tf.reduce_sum(acc)", "tf.reduce_mean(acc)", "tf.reduce_max(acc)", "s.h",
            "tf.reduce_min(acc) * 2.0"]
_NUMBERS = ["1.0", "0.5 * k", "s.total", "float(n)", "-0.25", "G_SCALE", "k"]


@rule(0.6, max_depth=2)
def min_max_values(g):
    """(F483) `min`/`max` of two or three operands or of a list or tuple, at least one a
    scalar tensor, used as a value."""
    fn = g.choice(["min", "max"])
    t = g.choice(_SCALARS)
    other = g.choice(_NUMBERS + _SCALARS)
    a, b = (t, other) if g.choice([True, False]) else (other, t)
    v = g.fresh("m")
    use = g.choice([
        f"s.h = s.h + {v}",
        f"out.append({v})",
        f"acc = acc + {v}",
        f"s.hist.append({v})",
        f"if {v} > 0.5:\n    k = k + 1",
        f"s.total = {v}" if other in _NUMBERS else f"s.h = {v} * 0.5",
    ])
    call = g.choice([f"{fn}({a}, {b})", f"{fn}({a}, {b}, {g.choice(_NUMBERS)})",
                     f"{fn}([{a}, {b}])", f"{fn}(({t}, {g.choice(_SCALARS)}))"])
    return [f"{v} = {call}"] + use.split("\n")


@rule(0.2, max_depth=1)
def running_best(g):
    """(F483) A running best kept on the heap with `min`/`max`: a float at first, the
    tensor once one wins; and a cap of the returned value."""
    fn = g.choice(["min", "max"])
    t = g.choice(_SCALARS[:3])
    return [f"s.total = {fn}(s.total, {t})",
            f"acc = acc * 0.0 + {g.choice(['min', 'max'])}({t}, {g.choice(['2.0', 's.h'])})"]


@rule(0.1, max_depth=1)
def min_max_odd(g):
    """(F483) `min` of a program's own (a module-level def shadows the builtin) or of
    operands Python cannot compare (a tensor and a string: TypeError, as Python)."""
    if g.choice([True, False]):
        g.helpers.append("def min(a, b):\n    return a * 0.5 + b * 0.5\n")
        return [f"acc = acc + min(acc, {g.choice(_NUMBERS)})"]
    return ["if flag:", "    out.append(max(tf.reduce_sum(acc), 'x'))"]


@rule(0.5, max_depth=2)
def math_of_tensors(g):
    """(F484) A `math` function of a scalar float tensor itself (no `float()`): a value
    stored, returned or computed with, a test raising on NaN, floor/ceil to a Python int;
    now and then of a vector (TypeError, as Python)."""
    t = g.choice(_SCALARS)
    v = g.fresh("r")
    fn = g.choice(["math.sqrt(tf.abs({t}))", "math.exp(tf.tanh({t}))", "math.log1p(tf.abs({t}))",
                   "math.tanh({t})", "math.fabs({t})", "math.cos({t})"]).format(t=t)
    use = g.choice([f"s.total = s.total * 0.5 + {v}", f"out.append({v})", f"k = k + math.floor({v})",
                    f"acc = acc * {v}", f"s.hist.append(round({v}, 3))"])
    lines = [f"{v} = {fn}", use]
    if g.chance(0.3):
        lines += [f"if math.isnan({t}):", "    raise FloatingPointError('nan')"]
    if g.chance(0.1):
        lines += ["if flag:", "    out.append(math.sqrt(tf.abs(acc)))"]
    return lines


@rule(0.4, max_depth=2)
def helper_refusal(g):
    """(F485) A module-level helper reading a tensor's value in a way no graph keeps,
    called from the step between tensor work (its result stored, added or tested)."""
    name = g.fresh("host_value")
    body = g.choice([
        "    if hasattr(v, 'numpy'):\n        v = v.numpy()\n    return float(v)\n",
        "    return float(np.sum(v.numpy())) * 0.5\n",
        "    arr = v.numpy()\n    return float(arr.max() - arr.min())\n",
    ])
    g.helpers.append(f"def {name}(v):\n{body}")
    t = g.choice(["tf.reduce_sum(acc)", "acc", "tf.reduce_mean(acc)"])
    use = g.choice([f"s.hist.append({name}({t}))", f"k = k + int({name}({t}) > 0.0)",
                    f"acc = acc * 0.5 + {name}({t})", f"s.total = s.total + {name}({t})"])
    return [f"acc = {g.texpr()}", use, f"acc = tf.tanh(acc) * 1.5"]
