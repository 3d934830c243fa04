"""Generator rules (session 32, f4) from two slowdowns left open in session 31:

- (F356) a history list only a rarely taken branch appends to, held in a dict with lists
  the other calls append to (a GAN step's `hist["g"]`, its generator update every k-th
  call, with the generator's optimizer, first built in that branch); the other outcome's
  graph copies it untouched, and janus must take it as only appended to (its length fed)
  when it grows, not as a stacked tensor the appending outcome cannot append to.
- (F357) TensorArrays written in a loop that exits on a tensor test (their flows chosen
  at the exit), read by a later step whose gradient a caller's tape takes
  (`--outer-tape`): the graph must stay differentiable and give Python's gradients.

Keras variables are not in the heap snapshot: each step adds their sum to `acc`.
Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HISTORIES = '''\
import keras

RARE_HIST = {"d": [], "g": [], "n": []}
RARE_W = tf.Variable([0.5, -0.25])
RARE_OPT = keras.optimizers.Adam(0.01)  # (built by its first update: in the rare branch)
'''

_EVERY = ["s.count % 3 == 0", "s.count % 4 == 1", "s.count % 2 == 0 and n > 0"]
_RARE_STEPS = [
    ['RARE_HIST["g"].append(tf.reduce_sum(acc) * 2.0)'],
    ['RARE_HIST["g"].append(tf.reduce_sum(acc) * 2.0)',
     'RARE_HIST["n"].append(s.count)'],
    ["with tf.GradientTape() as rare_tape:",
     "    rare_loss = tf.reduce_sum(RARE_W * tf.cast(tf.reduce_mean(acc), tf.float32)) ** 2",
     "RARE_OPT.apply_gradients([(rare_tape.gradient(rare_loss, RARE_W), RARE_W)])",
     'RARE_HIST["g"].append(rare_loss)'],
    ['RARE_HIST["g"].append(acc + float(len(RARE_HIST["g"])))'],
    ['RARE_HIST["g"].append(tf.reduce_sum(acc))',
     "RARE_W.assign_add(tf.constant([0.125, 0.0]))"],
]


@rule(0.5, max_depth=0)
def rare_branch_history(g):
    """(F356) Every call appends to one history of a dict; a rarely taken branch (every
    k-th call of a counter) appends to another (and maybe steps an optimizer first
    used there); the variable read after it."""
    _helper(g, _HISTORIES)
    lines = ["s.count += 1",
             'RARE_HIST["d"].append(tf.reduce_sum(acc))',
             f"if {g.choice(_EVERY)}:"]
    lines += ["    " + line for line in g.choice(_RARE_STEPS)]
    lines.append("acc = acc + tf.cast(tf.reduce_sum(RARE_W), acc.dtype) * 0.1")
    if g.rng.random() < 0.3:
        lines.append('k = k + len(RARE_HIST["g"])')
    return lines


_EXITS = ["tf.reduce_sum({a}) > {c}", "tf.reduce_max({a}) > {c}",
          "tf.reduce_mean({a}) < -{c}"]
_GROW = ["{a} = {a} * 1.5 + 0.25", "{a} = {a} + 1.0", "{a} = {a} * {a} * 0.5 + {a}"]
_READS = [
    "acc = acc + tf.reduce_sum({ta}.stack(), 0) * 0.01",
    "acc = acc + {ta}.stack()[-1] * 0.1 + tf.cast({tb}.size(), acc.dtype)",
    "acc = acc + tf.reduce_sum({tb}.stack(), 0) * 0.01 + {ta}.stack()[0]",
    "out.append({tb}.size())",
]


@rule(0.5, max_depth=2)
def arrays_through_an_exit(g):
    """(F357) Two TensorArrays written in a `for` (or a `while` on a tensor count) that
    may `break` on a tensor test, read so that the result's gradient flows through
    them."""
    ta, tb, t, a = g.fresh("ta"), g.fresh("tb"), g.fresh("t"), g.fresh("a")
    exit_test = g.choice(_EXITS).format(a=a, c=g.choice(["0.5", "2.0", "6.0"]))
    grow = g.choice(_GROW).format(a=a)
    lines = [f"{a} = acc",
             f"{ta} = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)",
             f"{tb} = tf.TensorArray(acc.dtype, size=0, dynamic_size=True)",
             f"{ta}, {tb} = {ta}.write(0, {a}), {tb}.write(0, {a} * 2.0)"]
    if g.rng.random() < 0.6:
        lines += [f"for {t} in range(n % 3 + 2):",
                  f"    {grow}",
                  f"    if {exit_test}:",
                  "        break",
                  f"    {ta}, {tb} = {ta}.write({t} + 1, {a}), {tb}.write({t} + 1, {a} * {a})"]
    else:
        lines += [f"{t} = tf.constant(0)",
                  f"while {t} < n + 2:",
                  f"    {t} = {t} + 1",
                  f"    {grow}",
                  f"    if {exit_test}:",
                  "        break",
                  f"    {ta}, {tb} = {ta}.write({t}, {a}), {tb}.write({t}, {a} * {a})"]
    lines.append(g.choice(_READS).format(ta=ta, tb=tb))
    return lines
