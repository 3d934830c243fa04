"""Generator rules (v25) for `and`/`or`/`not` and conditional expressions as values whose
operands mix tensors, Python ints janus may feed to the graph, Python constants and numpy
scalars from `.numpy()` (janus/transform/bool_values.py, janus/graphgen/bool_values.py):
the value is the operand itself (a tensor, an int, an `np.bool_`...), printed, stored on
the heap, appended to the returned list, used in tensor code; an operand after the first
may print, append to a global or raise, and must run only where Python runs it. In
straight code and inside loops janus makes one `tf.while_loop` of (a `break` on a tensor).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.generator import indent
from tests.fuzz.rules import rule


def _operand(g, numpy_name: str | None = None) -> str:
    """One operand of an `and`/`or`: a tensor test or value, a (maybe fed) int test, a
    Python constant, a numpy scalar's test."""
    c = g.choice(["0.0", "0.5", "1.0", "-0.5"])
    options = [g.tcond(), g.tcond(), f"tf.reduce_mean({g.tensor()})", f"n > {g.rng.randint(0, 3)}",
               "k", f"k % 2 == {g.rng.randint(0, 1)}", "flag", g.choice(["0", "1.5", "None", "''"]),
               g.pcond()]
    if numpy_name is not None:
        options += [f"{numpy_name} > {c}", f"{numpy_name} < {c}"] * 2
    return g.choice(options)


def _use(g, name: str) -> list[str]:
    """What the program does with the value."""
    return [g.choice([
        f"print('bv', {name})",
        f"s.last_b = {name}",
        f"s.d['bv'] = {name}",
        f"G_DICT['bv'] = {name}",
        f"out.append({name})",
        f"acc = acc + (1.0 if {name} else 0.5)",
        f"k = k + (1 if {name} else 0)",
    ])]


@rule(0.8, max_depth=2)
def bool_value(g):
    """`v = a or b and not c`, `v = x if t else y` in straight code: operands of mixed
    kinds, maybe a numpy scalar read with `.numpy()`, maybe a later operand with an
    effect (a print, an append to a global) or one that raises (an index out of range)."""
    v = g.fresh("bv")
    lines = []
    numpy_name = None
    if g.chance(0.35):
        numpy_name = g.fresh("hv")
        lines.append(f"{numpy_name} = tf.{g.choice(['reduce_max', 'reduce_min', 'reduce_sum'])}"
                     f"({g.tensor()}).numpy()")
    shape = g.choice(["or", "and", "mixed", "not", "ifexp", "effect", "raise", "numbers"])
    a, b, c = (_operand(g, numpy_name) for _ in range(3))
    if shape == "or":
        value = f"{a} or {b}"
    elif shape == "and":
        value = f"{a} and {b}"
    elif shape == "mixed":
        value = f"{a} or {b} and not {c}"
    elif shape == "not":
        value = f"not {a}"
    elif shape == "ifexp":
        value = g.choice([f"{g.texpr()} if {a} else acc * 0.5", f"{a} if {g.tcond()} else {b}",
                          f"k + 1 if {a} else k"])
    elif shape == "effect":
        value = g.choice([f"{a} or (G_LIST.append(k) or {b})",
                          f"{a} and print('evaluated', k) is None",
                          f"{b} if {g.tcond()} else (G_LIST.append(1) or {a})"])
    elif shape == "raise":
        value = g.choice([f"{g.tcond()} or xs[{g.rng.randint(1, 4)}] is None",
                          f"acc if {g.tcond()} else xs[{g.rng.randint(2, 5)}]"])
    else:  # fed ints and constants only: one generalized graph, or Python
        value = g.choice(["k or n", "n if n > k else k", "(n > 2) or k", "k and n + 1",
                          "not n"])
    return lines + [f"{v} = {value}"] + _use(g, v)


@rule(0.6, max_depth=1)
def bool_value_loop(g):
    """A conditional expression and an `or` on tensors inside a loop that breaks on a
    tensor (one tf.while_loop, the expression a tf.cond in it), or a plain range loop."""
    i, y, v = g.fresh("bi"), g.fresh("by"), g.fresh("bv")
    limit = g.choice(["1.0", "4.0", "20.0"])
    body = [f"{y} = {g.texpr()} if {g.tcond()} else acc * 0.5",
            f"{v} = tf.reduce_sum({y}) > {g.choice(['0.0', '1.0'])} or tf.reduce_min(acc) < -1.0",
            f"acc = acc * 0.8 + {y} * 0.1"]
    if g.chance(0.3):
        body.append(f"acc = acc + (0.1 if {v} else -0.1)")
    if g.chance(0.7):
        body += [f"if tf.reduce_sum(acc) > {limit} {g.choice(['or', 'and'])} {v}:", "    break"]
    lines = [f"for {i} in range({g.choice(['3', 'n + 1', '5'])}):"] + indent(body)
    return lines + g.choice([[f"out.append({v} if {g.choice(['True', 'flag'])} else None)"],
                             [], [f"s.last_b = not {g.tcond()}"]])
