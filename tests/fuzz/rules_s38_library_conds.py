"""Generator rules (session 38) for a library's own tf.cond whose branches update
variables (F466): Keras 3's LossScaleOptimizer steps a module-level variable
(`scale_loss` under a tape, `apply_gradients` with its finite-gradients cond), once or
twice a call. janus refuses that line (a graph break) and runs the rest as graphs; before,
TensorFlow's "accessed from false_fn" error made it give the function up. And
`keras.ops.cond` in the step (F467), also inside a tf.cond branch; a Keras layer built
in the step on every call (F469).
Keras variables are not in the heap snapshot: each step adds their sum to `acc`.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_OPTIMIZER = '''\
import keras

LC_W = tf.Variable([0.5, -0.5, 0.25])
LC_OPT = tf.Module()  # (held by a library object: compared through acc, not the heap)
LC_OPT.lso = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.05))
'''

_STATEMENTS = [
    ["with tf.GradientTape() as lc_tape:",
     "    lc_loss = tf.reduce_sum(LC_W * LC_W) * tf.reduce_mean(acc)",
     "    lc_scaled = LC_OPT.lso.scale_loss(lc_loss)",
     "lc_grads = lc_tape.gradient(lc_scaled, [LC_W])",
     "LC_OPT.lso.apply_gradients(zip(lc_grads, [LC_W]))",
     "acc = acc + tf.reduce_sum(LC_W) + tf.cast(LC_OPT.lso.iterations, acc.dtype)"],
    ["acc = acc * tf.reduce_sum(LC_W)"],
]


_KERAS = "import keras\n"

_KERAS_CONDS = [
    ["acc = acc + keras.ops.cond(tf.reduce_sum(acc) > 0, lambda: acc * 0.5, "
     "lambda: acc - 0.25)"],
    ["kc = keras.ops.cond(tf.reduce_mean(x) > 0.1, lambda: tf.reduce_sum(x), "
     "lambda: tf.reduce_max(x))", "acc = acc * 0.5 + kc"],
    ["acc = tf.cond(tf.reduce_sum(acc) > 1.0, lambda: keras.ops.cond(tf.reduce_max(acc) "
     "> 2.0, lambda: acc * 0.25, lambda: acc), lambda: acc + 0.5)"],
]


@rule(0.4, max_depth=2)
def keras_conds(g):
    """(F467) `keras.ops.cond` in the step (Keras numbers a `Cond` operation per call: the
    graph numbers it again per call), and inside a tf.cond branch (refused: per branch
    taken in plain Python)."""
    _helper(g, _KERAS)
    return g.choice(_KERAS_CONDS)


@rule(0.3, max_depth=2)
def layers_per_call(g):
    """(F469) A Keras layer built in the step on every call (Keras numbers its name: the
    trace is refused at that line, the rest of the step split into graphs)."""
    _helper(g, _KERAS)
    return [f"kl = keras.layers.Activation({g.choice(['relu', 'tanh'])!r})",
            "acc = acc + kl(acc)"]


@rule(0.3, max_depth=1)
def library_cond_updates(g):
    """(F466) A LossScaleOptimizer step on a module-level variable, then its value read."""
    _helper(g, _OPTIMIZER)
    first = g.choice(_STATEMENTS)
    if g.chance(0.5):
        return first
    return first + g.choice(_STATEMENTS)
