"""Generator rules for Python and numpy arithmetic on the numbers janus feeds to a graph,
at the edges where TensorFlow's kernels answer otherwise (janus/graphgen/exact_numbers.py):
v27 ints past int64, a zero divisor (`n` is 0 in some calls), subnormal floats, float
`//` and `%`, powers, signed zeros; v28 numpy scalar arithmetic and `math` functions of
fed numbers (janus/graphgen/host_scalars.py, number_functions.py); v31 numpy scalar
powers. The results are kept as `repr` text in `s.hist`, so they compare exactly (floats
elsewhere compare within the tensor tolerance, which hid this class). Also v30's
`maybe_unbound` (a name bound on some paths only, read after the block: boolv10-F55);
v41 values at the ends of the range janus's fast exactness check accepts; v45 squares
and bounded `math` functions there (`x ** 2`, `math.sin(x)` are checked by x's range).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_INTS = ["(n + 2) ** 40 * (k + 1)", "(n + 1) * 10 ** 18 + k * 10 ** 18",
         "(k + n + 3) ** 21 - (n + 2) ** 9", "-((n + 5) ** 30) // (k % 3 + 1)",
         "(n * 3 + 7) ** 25 % (k + 11)"]
_FLOATS = ["1e-300 * (n + 1) * 1e-10 * G_SCALE", "(n + 0.5) // 0.1", "-(n * 1.0) % 1.0",
           "(n * -1.0) % -1.0", "-(n * 0.0)", "(n - n) * -1.0", "(n + 1.5) / 7",
           "(k + 0.25) * 3.0 / 11.0 * G_SCALE", "float(n) ** 0.5", "(n - 2.0) ** 3",
           "2.0 ** (n * 350)", "1e-300 / 10.0 ** (n + 8)", "(n + 1) ** 35 + 0.5",
           # (v41: at the ends of the fast check's range, 2**-500 and 2**500)
           "(n + 1) * 2.0 ** -499 * G_SCALE", "(k + 1) * 1e-151 * (n + 1)",
           "(n + 1.5) * 3e150 * G_SCALE", "2.0 ** 499 * (k + 1) - 2.0 ** 499",
           # (v45: squares checked by their base's range)
           "((n + 1) * 2.0 ** -300) ** 2", "(k * 1e-200) ** 2", "((n + 1) * 1.5e154) ** 2",
           "((k + 0.5) * 2.0 ** 499) ** 2 * 2.0 ** -1000", "(G_SCALE * -2.0 ** -499) ** 1"]
_DIVISORS = ["n", "(n - 1)", "float(n)", "(k % 2)"]


@rule(0.8)
def exact_numbers(g):
    """An int or float expression over `n`, `k`, `G_SCALE` and constants at the edges,
    straight, divided by a value that is zero in some calls, or grown in a loop; its
    repr appended to `s.hist` (and sometimes its comparison to a bound)."""
    e = g.fresh("ex")
    shape = g.choice(["int", "float", "float", "divide", "loop", "compare"])
    if shape == "int":
        lines = [f"{e} = {g.choice(_INTS)}"]
    elif shape == "float":
        lines = [f"{e} = {g.choice(_FLOATS)}"]
    elif shape == "divide":
        op = g.choice(["/", "//", "%"])
        lines = [f"{e} = ({g.choice(['k + 0.5', 'n * 2 + 1', 'G_SCALE', '-(n * 1.0)'])}) "
                 f"{op} {g.choice(_DIVISORS)}"]
        if g.chance(0.5):
            lines = [f"if {g.choice(_DIVISORS)}:"] + ["    " + line for line in lines] + \
                    ["else:", f"    {e} = -0.0"]
    elif shape == "loop":
        i = g.fresh("ei")
        lines = [f"{e} = {g.choice(['k + 2', 'n + 3', '(n + 1) * 0.5', '1e-300 * (k + 1)'])}",
                 f"for {i} in range(n + {g.choice(['2', '20', '40'])}):",
                 f"    {e} = {e} * {g.choice(['3', '(n + 7)', '0.125', '1e-3'])} + {i}"]
    else:
        lines = [f"{e} = {g.choice(_INTS)} > 2 ** {g.choice(['53', '62', '63', '64'])}"]
    return lines + [f"s.hist.append(repr({e}))"]


_SCALAR_EXPRS = ["{v} * 0.5 + G_SCALE - {v} / 3.0", "{v} * {v} - 1.5", "-{v} + k",
                 "abs({v}) / 7.0", "{v} * 1e300 * 1e10", "{v} / ({v} - {v})", "({v} + 1) * n",
                 "{v} * 1e-300 * 1e-20", "{v} ** 2 - {v} ** 0.5", "2.0 ** ({v} * 1100.0)",
                 "{v} * 2e-151 * (n + 1) + {v}", "({v} + 3.0) * 1e150 * (k + 2)",
                 # (v45: numpy scalar squares at the ends of the range check)
                 "({v} * 2.0 ** -59) ** 2", "({v} * 2.0 ** 59) ** 2 * 0.5", "({v} * 1e-40) ** 2",
                 "{v} ** 1 + ({v} * 2.0 ** -250) ** 2.0"]
_MATH = ["math.cos({w})", "math.sin({w}) * 2.0", "math.sqrt({w})", "math.log({w})",
         "math.exp({w} * 700.0)", "math.tanh({w}) + math.atan({w})", "math.fabs({w})",
         "math.log1p({w})", "math.expm1({w})", "math.tan({w})",
         # (v45: bounded functions checked by their argument's range)
         "math.sin({w} * 2.0 ** -499)", "math.cos({w} * 2.0 ** 499) + math.atan({w} * 1e-160)",
         "math.tanh({w} * 1e-300) + math.fabs({w} * 4e150)"]


@rule(0.6)
def numpy_scalar_math(g):
    """numpy scalar arithmetic on `.numpy()` of a reduced tensor (float32 or float64,
    as `x`), with Python numbers, `n`, `k`; `math` functions of it; results kept as
    `repr` text and numpy type names (compared exactly)."""
    v, w, r = g.fresh("nv"), g.fresh("nw"), g.fresh("nr")
    reduce = g.choice(["tf.reduce_sum(x)", "tf.reduce_max(acc)", "tf.reduce_mean(x) * 2.0"])
    lines = [f"{v} = {reduce}.numpy()",
             f"{w} = {g.choice(_SCALAR_EXPRS).format(v=v)}",
             f"s.hist.append(repr({w}) + type({w}).__name__)"]
    if g.chance(0.7):
        lines += [f"{r} = {g.choice(_MATH).format(w=g.choice([v, w, 'float(n)', 'k + 0.5']))}",
                  f"s.hist.append(repr({r}))"]
    return lines


@rule(0.4)
def maybe_unbound(g):
    """A name bound only on some paths (one branch of a Python or tensor `if`, a loop
    over a list that may be empty), read after the block inside `try`: plain Python
    raises UnboundLocalError there (boolv10-F55: janus read its UNDEFINED placeholder)."""
    u = g.fresh("ub")
    if g.chance(0.5):
        block = [f"if {g.choice([g.pcond(), g.tcond()])}:", f"    {u} = acc * 2.0"]
    else:
        item = g.fresh("ui")
        block = [f"for {item} in xs[:n % 3]:", f"    {u} = {item} * 0.5"]
    return block + ["try:", f"    acc = acc + {u}", "except UnboundLocalError:",
                    "    s.hist.append('unbound')"]


_ENV_CLASS = '''class {name}:
    """A numpy environment (CartPole's dynamics, models/envs.py)."""

    def __init__(self):
        self.state = np.array([0.01, -0.02, 0.03, 0.04])
        self.steps = 0

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        self.steps += 1
        done = abs(x) > 2.4 or abs(theta) > 0.21 or self.steps >= {limit}
        return self.state.astype(np.float32), 1.0, bool(done)
'''


@rule(0.5)
def numpy_env_step(g):
    """A step of a numpy environment held by the module (its state a float64 array:
    unpacked, computed with `math` functions and numpy scalars, packed with `np.array`,
    cast with `astype`), with an action from `n`, a tensor's argmax or a constant; its
    observation read back as numbers (v32)."""
    name, env, ob, r, d = (g.fresh(p) for p in ("Env", "ENV_", "ob", "rw", "dn"))
    g.helpers.append(_ENV_CLASS.format(name=name, limit=g.choice(["5", "12", "40"])))
    g.helpers.append(f"{env} = {name}()\n")
    action = g.choice(["n % 2", "int(tf.argmax(tf.reshape(x, [-1])).numpy()) % 2", "1"])
    return [f"{ob}, {r}, {d} = {env}.step({action})",
            f"s.hist.append(repr(float({ob}[2])) + repr({d}))",
            f"acc = acc + float({ob}[0]) * {r}",
            f"if {d}:",
            f"    {env}.state = np.array([0.0, 0.01, -0.01, 0.0])"]
