"""Generator rules for loops janus builds as one tf.while_loop while they write the heap
(janus/graphgen/loop_heap.py, v35): an environment object of the module stepped until
it says done, its numpy state, Python step counter and a tensor attribute carried
through the loop; an attribute written after the exit test (kept at its value where the
loop stops); `done` an `or` of a numpy bool and a Python bool (a MixedBool in the
graph: only its truth may be used; its repr or type must not leak). Results as `repr`
text in `s.hist` (compared exactly). v36 (`heap_episode_draws`): the environment draws
its noise from its own numpy RNG in `step`, the loop body maybe again after the exit
test, and the RNG once more after the loop (graphgen/loop_draws.py: the draws' position
a tensor carried through the tf.while_loop; a wrong count shows in every later draw).
v37 (`heap_episode_while`): the same environment stepped by `while not done:` (or a
counter and the flag in one test), no `break` (graphgen/general_while.py).
v38 (`varying_list_growth`): a loop over the list argument `xs` (its length varies)
changing Python numbers (carried as fed numbers), growing a list at its end, at its
front or in the middle, maybe reading it (its length, its last item) in the same
iteration; `heap_episode` discounts its rewards after the loop into a list built at its
front (actor-critic's returns); in both, a Python number the loop turns into a tensor
after its first iteration.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_WALKER = '''class {name}:
    """A walker with a numpy state, a Python step counter and a tensor total."""

    def __init__(self):
        self.state = np.array([0.01, -0.02])
        self.steps = 0
        self.total = tf.constant(0.0)
        self.last = 0.0

    def step(self, push):
        x, v = self.state
        force = {force}
        v = v + 0.1 * force
        x = x + 0.1 * v
        self.state = np.array([x, v])
        self.steps += 1
        done = {done}
        return self.state.astype(np.float32), {reward}, {convert}
'''
_FORCES = ["0.5 if push > 0 else -0.3", "0.4 if push > 0.1 else -0.6",
           "(0.5 if push > 0 else -0.3) * 2.0"]
_DONES = ["abs(x) > {lim} or self.steps >= {cap}", "bool(abs(x) > {lim}) or self.steps >= {cap}",
          "self.steps >= {cap} or abs(v) > {lim}", "abs(x) > {lim} and self.steps > 1 or "
          "self.steps >= {cap}"]
_PUSHES = ["tf.reduce_sum(x) * 0.1 + tf.reduce_sum(tf.convert_to_tensor({ob}))",
           "tf.reduce_mean(acc) - 0.02 * {t}", "tf.reduce_sum(tf.convert_to_tensor({ob})) - "
           "0.1 * n", "tf.reduce_max(x) * 0.3 - {t} * 0.04"]


def _walker(g, name: str, env: str) -> list[str]:
    """A walker class `name` of the module and its instance `env`; maybe reset first."""
    done = g.choice(_DONES).format(lim=g.choice(["0.3", "1.0", "2.5"]),
                                   cap=g.choice(["3", "12", "30"]))
    g.helpers.append(_WALKER.format(name=name, force=g.choice(_FORCES), done=done,
                                    reward=g.choice(["1.0", "float(x)", "x * 2.0"]),
                                    convert=g.choice(["bool(done)", "bool(done)", "done"])))
    g.helpers.append(f"{env} = {name}()\n")
    if g.chance(0.6):
        return [f"{env}.state = np.array([0.01 * (n % 3), -0.02])", f"{env}.steps = 0"]
    return []


@rule(0.6)
def heap_episode(g):
    """An environment of the module stepped in a `for` over a range until done: heap
    attributes written in every iteration, lists grown, a counter kept, maybe an
    attribute written after the exit test; reset or not before the loop."""
    name, env = g.fresh("Walk"), g.fresh("WALK_")
    t, ob, rw, dn, rs = (g.fresh(p) for p in ("wt", "wo", "wr", "wd", "wrs"))
    lines = _walker(g, name, env)
    lines += [f"{ob} = {env}.state.astype(np.float32)", f"{rs} = []",
              f"for {t} in range({g.choice(['40', 'n + 8', '6'])}):",
              f"    push = {g.choice(_PUSHES).format(ob=ob, t=t)}",
              f"    {ob}, {rw}, {dn} = {env}.step(push)",
              f"    {rs}.append({rw})"]
    if g.chance(0.4):
        lines.append(f"    {env}.total = {env}.total + push")
    if g.chance(0.2):  # (a Python number the loop turns into a tensor: no loop state)
        lines.append(f"    {env}.last = {env}.last + tf.constant(1.0) if {env}.last else 1.0")
    if g.chance(0.2):  # (its type leaks: the graph must refuse it)
        lines.append(f"    s.hist.append(repr({dn}))")
    lines += [f"    if {dn}:", "        break"]
    if g.chance(0.4):
        lines.append(f"    {env}.last = push * 2.0")
    if g.chance(0.3):  # (v42: under a tape, to which the numpy state is a constant)
        tape, tot, gw = g.fresh("wtape"), g.fresh("wtot"), g.fresh("wgw")
        first = next(i for i, line in enumerate(lines) if line.startswith(f"for {t} in "))
        loop = lines[first:]
        loop.insert(2, f"    {tot} = {tot} + tf.cast(push, x.dtype)")  # (after `push =`)
        lines[first:] = [f"{tot} = tf.zeros([], x.dtype)",
                         f"with tf.GradientTape() as {tape}:", f"    {tape}.watch(x)"] + \
            ["    " + line for line in loop] + \
            [f"{gw} = {tape}.gradient({tot}, x)",
             f"acc = acc + (0.0 if {gw} is None else tf.reduce_sum({gw}) * 0.1)"]
    lines += [f"s.hist.append(repr(len({rs})) + repr({env}.steps))",
              f"s.hist.append(repr({env}.state.tolist()))",
              f"acc = acc + {env}.total + {env}.last"]
    if g.chance(0.5):  # (the returns of the episode, discounted)
        r, d, ret = g.fresh("wdr"), g.fresh("wds"), g.fresh("wret")
        lines += [f"{ret} = []", f"{d} = 0.0", f"for {r} in {rs}[::-1]:",
                  f"    {d} = {r} + 0.99 * {d}", f"    {ret}.insert(0, {d})",
                  f"s.hist.append(repr({ret}) + repr({d}))"]
    return lines


_GROWTHS = ["{g}.append({e})", "{g}.insert(0, {e})", "{g} += [{e}]", "{g}.insert(1, {e})",
            "{g}.append({e} + float(len({g})))", "{g}.append({e} * {g}[-1])"]


@rule(0.5)
def varying_list_growth(g):
    """A loop over `xs` (a list whose length varies: one tf.while_loop or a batched
    loop) that changes Python numbers and grows a list (maybe reading it as it goes)."""
    i, grown, c, f, d = (g.fresh(p) for p in ("vi", "vg", "vc", "vf", "vd"))
    start = g.choice(["[]", "[]", "[x * 0.0]"])
    growth = g.choice(_GROWTHS if start != "[]" else _GROWTHS[:5])
    lines = [f"{grown} = {start}", f"{c}, {f}, {d} = 0, 0.5, 0.0", f"for {i} in xs:"]
    body = [growth.format(g=grown, e=g.choice([f"{i} * 2.0", f"{i} + {d}", f"tf.tanh({i})"])),
            g.choice([f"{c} += 1", f"{c} = {c} + len(xs)", f"{f} = {f} * 0.5 + 1.0",
                      f"{c} = {c} + tf.constant(1) if {c} else 1"]),
            g.choice([f"{d} = {i} + 0.99 * {d}", f"{f} = {f} + 0.25", f"{c} += 2"])]
    g.rng.shuffle(body)
    lines += ["    " + line for line in body]
    lines += [f"s.hist.append(repr({c}) + repr({f}) + repr(len({grown})))",
              f"acc = acc + {d}"]
    if g.chance(0.7):
        lines.append(f"acc = acc + tf.reduce_sum(tf.stack({grown}), 0)"
                     if start != "[]" else
                     f"acc = acc + (tf.reduce_sum(tf.stack({grown}), 0) if {grown} else 0.0)")
    return lines


_NOISY = '''class {name}:
    """A walker with Python float state, drawing its noise from its own numpy RNG."""

    def __init__(self):
        self.rng = {rng}
        self.x, self.v, self.steps = 0.01, -0.02, 0

    def step(self, push):
        force = {force}
        self.v = self.v + 0.1 * force + {noise}
        self.x = self.x + 0.1 * self.v
        self.steps += 1
        done = self.x > {lim} or self.x < -{lim} or self.steps >= {cap}
        return self.x, {reward}, done
'''
_NOISES = ["self.rng.uniform(-0.05, 0.05)", "(self.rng.random() - 0.5) * 0.1",
           "self.rng.uniform(-0.2, 0.2) * self.rng.uniform(0.0, 0.5)"]
_RS_NOISES = ["self.rng.random_sample() * 0.1 - 0.05", "self.rng.uniform(-0.05, 0.05)",
              "self.rng.choice(3, p=[0.2, 0.3, 0.5]) * 0.05 - 0.05"]


@rule(0.5)
def heap_episode_draws(g):
    """`heap_episode` with an environment drawing from its numpy RNG in every step; a
    draw in the loop body after the exit test (not made in the stopping iteration) and
    one after the loop."""
    name, env = g.fresh("Noisy"), g.fresh("NOISY_")
    t, ob, rw, dn, rs, dr = (g.fresh(p) for p in ("nt", "no", "nr", "nd", "nrs", "ndr"))
    generator = g.chance(0.5)
    rng = "np.random.default_rng(41)" if generator else "np.random.RandomState(43)"
    g.helpers.append(_NOISY.format(
        name=name, rng=rng, force=g.choice(_FORCES),
        noise=g.choice(_NOISES if generator else _RS_NOISES),
        lim=g.choice(["0.05", "0.2", "1.0"]), cap=g.choice(["3", "12", "30"]),
        reward=g.choice(["1.0", "self.x * 2.0", "self.v"])))
    g.helpers.append(f"{env} = {name}()\n")
    draw = f"{env}.rng.random()" if generator else f"{env}.rng.random_sample()"
    lines = []
    if g.chance(0.6):
        lines += [f"{env}.x, {env}.v = 0.01 * (n % 3), -0.02", f"{env}.steps = 0"]
    lines += [f"{ob} = {env}.x", f"{rs} = []", f"{dr} = 0.0",
              f"for {t} in range({g.choice(['40', '6', '15'])}):",
              f"    push = {g.choice(['tf.reduce_sum(x) * 0.1 + {ob}', 'tf.reduce_mean(acc) - 0.02 * {t}']).format(ob=ob, t=t)}",
              f"    {ob}, {rw}, {dn} = {env}.step(push)",
              f"    {rs}.append({rw})",
              f"    if {dn}:", "        break"]
    if g.chance(0.5):
        lines.append(f"    {dr} = {dr} + {draw}")
    lines += [f"s.hist.append(repr(len({rs})) + repr({env}.steps) + repr({env}.x))",
              f"s.hist.append(repr({dr}))",
              f"s.hist.append(repr({draw}))",
              f"acc = acc + {env}.x"]
    return lines


_WHILE_TESTS = ["not {dn}", "{k} < {cap} and not {dn}", "not {dn} and {env}.steps < {cap}",
                "{k} < n + 2 and not {dn}", "{dn} == False"]  # noqa: E712 - a test of its own


@rule(0.5)
def heap_episode_while(g):
    """`heap_episode` as `while not done:` (or a counter and the flag in one test): the
    flag Python-valued until the environment's step makes it a tensor in the graph (v37:
    graphgen/general_while.py builds it as one tf.while_loop, first iteration peeled);
    Python numbers counted in the body, lists grown, heap attributes written."""
    name, env = g.fresh("WWalk"), g.fresh("WWALK_")
    k, ob, rw, dn, rs, tot = (g.fresh(p) for p in ("wk", "wo", "wr", "wd", "wrs", "wtot"))
    lines = _walker(g, name, env)
    test = g.choice(_WHILE_TESTS).format(k=k, dn=dn, env=env, cap=g.choice(["5", "40"]))
    lines += [f"{ob} = {env}.state.astype(np.float32)", f"{rs} = []",
              f"{dn}, {k}, {tot} = False, 0, 0.0",
              f"while {test}:",
              f"    push = {g.choice(_PUSHES).format(ob=ob, t=k)}",
              f"    {ob}, {rw}, {dn} = {env}.step(push)",
              f"    {k} += 1"]
    if g.chance(0.5):
        lines.append(f"    {rs}.append({rw})")
    if g.chance(0.5):
        lines.append(f"    {tot} += {rw}")
    if g.chance(0.4):
        lines.append(f"    {env}.total = {env}.total + push")
    if g.chance(0.3):
        lines.append(f"    {env}.last = {env}.last * 0.5 + 1.0")
    if g.chance(0.15):  # (its type leaks: the graph must refuse it)
        lines.append(f"    s.hist.append(repr({dn}))")
    flag = g.choice([dn, f"bool({dn})"])  # (repr of a bool of either type: refused)
    lines += [f"s.hist.append(repr(len({rs})) + repr({k}) + repr({env}.steps) + repr({flag}))",
              f"s.hist.append(repr({tot}) + repr({env}.state.tolist()))",
              f"acc = acc + {env}.total + {env}.last"]
    return lines
