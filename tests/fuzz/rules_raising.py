"""Generator rules (v22) for ops that may raise and whose results nothing reads, inside
the loops and branches janus makes one TensorFlow construct of (janus/graphgen/
dead_ends.py): eager runs such an op, and raises on the data that puts its index out of
range; TF prunes it from a function body unless janus keeps it.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_FLAT = "tf.reshape(x, [-1])"


@rule(0.8, max_depth=1)
def unused_raising_op(g):
    """A `tf.gather` at an index that depends on the data (out of range for small
    inputs), its result dropped, inside: a `for` over `tf.range`, a tensor `while`, a
    tensor `if`, the tail of a loop that breaks on a tensor, a loop over a list that
    grows another (run batched), or a callback of the user's own `tf.while_loop` /
    `tf.cond`."""
    i, j = g.fresh("di"), g.fresh("dj")
    c = g.choice(["3", "5", "n + 2"])
    shape = g.choice(["range", "while", "if", "exit", "tf_while", "tf_cond", "items"])
    if shape == "range":
        return [f"for {i} in tf.range(tf.minimum(tf.size(x), {c})):",
                f"    {j} = tf.gather({_FLAT}, [{i} + {g.choice(['1', '2', 'n % 3'])}])",
                f"    acc = acc + tf.cast({i}, acc.dtype) * 0.01"]
    if shape == "while":
        return [f"{i} = tf.constant(0)",
                f"while {i} < tf.minimum(tf.size(x), {c}):",
                f"    tf.gather({_FLAT}, [{i} * 2])",
                "    acc = acc * 0.9",
                f"    {i} = {i} + 1"]
    if shape == "if":
        return [f"if {g.tcond()}:",
                f"    {j} = tf.gather({_FLAT}, [tf.size(x) - 1 + {g.choice(['0', '1', 'k % 2'])}])",
                "    acc = acc + 0.5",
                "else:",
                "    acc = acc - 0.5"]
    if shape == "exit":
        return [f"for {i} in range({c}):",
                f"    if tf.reduce_sum(acc) > {g.choice(['1.0', '4.0', '20.0'])}:",
                "        break",
                f"    {j} = tf.gather({_FLAT}, [{i} + 2])",
                "    acc = acc * 0.8 + 0.3"]
    if shape == "items":  # (a list of varying length: a batched loop, or a tf.while_loop)
        grown = g.fresh("dl")
        return [f"{grown} = []",
                f"for {i} in xs:",
                f"    {j} = tf.gather(tf.reshape({i}, [-1]), "
                f"[tf.cast(tf.reduce_sum(tf.abs({i})), tf.int32) % 11])",
                f"    {grown}.append({i} * 2.0)",
                f"out.append(len({grown}))"]
    if shape == "tf_while":
        return [f"{i}, acc = tf.while_loop(lambda a, b: a < {c}, lambda a, b: "
                f"(tf.gather({_FLAT}, [a + 1]), (a + 1, b * 0.9))[1], (tf.constant(0), acc))"]
    return [f"acc = tf.cond({g.tcond()}, lambda: (tf.gather({_FLAT}, [tf.size(x)]), "
            "acc * 2.0)[1], lambda: acc - 1.0)"]
