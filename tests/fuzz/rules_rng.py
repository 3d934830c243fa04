"""Generator rules for numpy random draws a graph makes (janus/graphgen/host_draws.py,
v34): a module-level `np.random.RandomState` / `np.random.Generator` (or one held by a
module-level object, drawn from in its method) drawn with `random_sample`, `random`,
`rand`, `uniform` (constant, fed and raising bounds; sizes) and `choice(n, p=...)` (a
constant list, a float64 softmax, a float32 softmax numpy sometimes refuses), mixed with
tensor work and the fed numbers `n` and `k`, straight, in an unrolled loop, under a
tensor `if`. The draws are kept as `repr` text in `s.hist` (compared exactly); a wrong
count of draws shows in every later draw.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_RNGS = {"RS_A": "RS_A = np.random.RandomState(17)\n",
         "RS_B": "RS_B = np.random.RandomState(29)\n",
         "GEN_A": "GEN_A = np.random.default_rng(23)\n"}
_BOX = '''class RngBox:
    """An object holding its RNG (an environment's, models/envs.py)."""

    def __init__(self):
        self.rng = np.random.default_rng(31)
        self.state = np.zeros(3)

    def reset(self, scale):
        self.state = self.rng.uniform(-scale, scale, size=3)
        return self.state.astype(np.float32)


BOX = RngBox()
'''


def _rng(g, generator: bool | None = None) -> str:
    names = [n for n in _RNGS if generator is None or n.startswith("GEN") == generator]
    name = g.choice(names)
    if _RNGS[name] not in g.helpers:
        g.helpers.append(_RNGS[name])
    return name


def _draw(g, z: str) -> list[str]:
    """`z = <a draw>` and a use of it (a float, an array or an int)."""
    generator = g.chance(0.4)
    rng = _rng(g, generator)
    if generator:
        kind, draw = g.choice([
            ("float", f"{rng}.random()"), ("array", f"{rng}.random({g.choice(['3', '(2, 2)'])})"),
            ("float", f"{rng}.uniform(-0.5, 0.5)"), ("float", f"{rng}.uniform(0.0, n + 0.5)"),
            ("float", f"{rng}.uniform(n, 2.5)"),  # (raises for n > 2: high - low < 0)
            ("array", f"{rng}.uniform(-1.0, 1.0, size=4)"),
            ("array", f"{rng}.uniform(-G_SCALE, k + 1.0, size=(1, 3))")])
    else:
        kind, draw = g.choice([
            ("float", f"{rng}.random_sample()"), ("array", f"{rng}.random_sample(3)"),
            ("float", f"{rng}.rand()"), ("array", f"{rng}.rand(2, 2)"),
            ("float", f"{rng}.uniform(-1.0, 1.0)"), ("float", f"{rng}.uniform(n, -k)"),
            ("array", f"{rng}.uniform(-0.1, 0.1, size=5)"), ("float", f"{rng}.random()"),
            ("int", f"{rng}.choice(3, p=[0.25, 0.25, 0.5])"),
            ("int", f"{rng}.choice(3, p=tf.nn.softmax(tf.cast(tf.stack([tf.reduce_sum(acc), "
                    "tf.reduce_max(acc), 0.5]), tf.float64)))"),
            ("int", f"{rng}.choice(2, p=tf.nn.softmax(tf.stack([tf.reduce_mean(acc), "
                    "tf.cast(k, acc.dtype)])))"),  # (float32: numpy refuses some sums)
            # (v46) a slice of a numpy read, at extreme logits (zeros, tiny probabilities)
            ("int", f"{rng}.choice(2, p=tf.nn.softmax(tf.reshape(tf.stack([tf.reduce_mean("
                    f"acc) * {g.choice(['1.0', '45.0', '90.0'])}, -tf.cast(k, acc.dtype)]), "
                    "[1, 2])).numpy()[0])"),
            ("int", f"{rng}.choice(2, p=[{g.choice(['1e-310', '0.0', '2.5e-308'])}, 1.0])")])
    if kind == "float":
        use = [f"s.hist.append(repr({z}))", f"acc = acc + {z} * 0.5"]
    elif kind == "array":
        first = f"{z}[0, 1]" if "2, 2" in draw or "1, 3" in draw else f"{z}[1]"
        use = [f"s.hist.append(repr(float({first})))",
               f"acc = acc * tf.cast(tf.reduce_sum({z}), acc.dtype)"]
    else:
        use = [f"out.append({z})", f"acc = acc + tf.cast({z}, acc.dtype)",
               f"k = k + {z}"]
    return [f"{z} = {draw}"] + use


@rule(0.8)
def numpy_draw(g):
    """A draw from a module's numpy RNG, used as a Python number, an array or an int
    (some raise in some calls: numpy's ValueError ends the call; no `try`, which would
    keep the whole function plain)."""
    return _draw(g, g.fresh("rz"))


@rule(0.4, max_depth=2)
def numpy_draw_loop(g):
    """Draws in a Python loop janus unrolls (a constant or a fed trip count), two RNGs
    interleaved, or under a tensor `if` (specialized, or a tf.cond where draws refuse)."""
    z, i = g.fresh("rz"), g.fresh("ri")
    a, b = _rng(g, False), _rng(g)
    shape = g.choice(["range", "fed", "if"])
    if shape == "if":
        return [f"if {g.tcond()}:",
                f"    {z} = {a}.uniform(-1.0, 1.0)",
                "else:",
                f"    {z} = {b}.random() * 2.0",
                f"s.hist.append(repr({z}))",
                f"acc = acc - {z}"]
    count = "3" if shape == "range" else "n % 3 + 1"
    return [f"for {i} in range({count}):",
            f"    {z} = {a}.uniform(-0.5, 0.5) + {b}.random() * {i}",
            f"    acc = acc * 0.9 + {z}",
            f"    s.hist.append(repr({z}))"]


@rule(0.3)
def numpy_draw_method(g):
    """A module-level object's method drawing into its own numpy array (an
    environment's reset), the result read back and handed to TF."""
    if _BOX not in g.helpers:
        g.helpers.append(_BOX)
    ob = g.fresh("ro")
    scale = g.choice(["0.05", "G_SCALE", "n + 0.5"])
    return [f"{ob} = BOX.reset({scale})",
            f"acc = acc + tf.cast(tf.reduce_sum(tf.convert_to_tensor({ob})), acc.dtype)",
            f"s.hist.append(repr(float(BOX.state[2])))"]
