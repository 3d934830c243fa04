"""Generator rules (session 31) from the probe round h2's execution-mode findings (F342):
library code janus runs as it is asks `tf.executing_eagerly()` (directly or through
Keras's `in_tf_graph()`) inside a traced call and takes another path than plain
Python's eager call: `StringLookup.vocabulary_size()` (a Python int eagerly, an int64
tensor in a graph), `keras.ops.max`/`min` of a selection that may be empty (raises
eagerly, -inf/inf in a graph), a helper scaling by the mode (also inside `tf.map_fn`,
whose body eager TensorFlow runs as Python, and `tf.vectorized_map`, a `tf.function`
eagerly).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_MODES = '''\
import keras
from keras.src.utils import backend_utils

MLOOK = keras.layers.StringLookup(vocabulary=["a", "b", "c"])


def mode_scale(a):
    """Scaled by whether Keras thinks it runs in a graph (eagerly: 1.5)."""
    return a * (0.5 if backend_utils.in_tf_graph() else 1.5)
'''

_VOCABULARY = [
    "acc = acc + tf.cast(MLOOK.vocabulary_size(), acc.dtype) * 0.01",
    "k = k + MLOOK.vocabulary_size()",
    "out.append(type(MLOOK.vocabulary_size()).__name__)",
    "print('vocab', MLOOK.vocabulary_size(), MLOOK.vocabulary_size() + 1)",
    "acc = acc + tf.cast(tf.reduce_sum(tf.one_hot(MLOOK(tf.constant(['a', 'z'])), "
    "MLOOK.vocabulary_size())), acc.dtype) * 0.1",
]

_THRESHOLDS = ["tf.reduce_mean({v})", "tf.reduce_max({v}) + (0.5 if n % 3 == 0 else -10.0)",
               "tf.reduce_max({v}) - 0.25", "tf.reduce_min({v}) + float(k % 2)"]


@rule(0.4, max_depth=2)
def library_vocabulary_size(g):
    """(F342) `StringLookup.vocabulary_size()`: a Python int in plain Python."""
    _helper(g, _MODES)
    use = g.choice(_VOCABULARY)
    return g.choice([[use], [f"if {g.pcond()}:", f"    {use}"]])


@rule(0.4, max_depth=2)
def library_max_of_a_selection(g):
    """(F342) `keras.ops.max`/`min` of a boolean-masked tensor that some calls leave
    empty: plain Keras raises InvalidArgumentError there."""
    _helper(g, _MODES)
    flat, chosen = g.fresh("mf"), g.fresh("ms")
    threshold = g.choice(_THRESHOLDS).format(v=flat)
    op = g.choice(["max", "min"])
    lines = [f"{flat} = tf.reshape(tf.cast({g.tensor()}, tf.float32), [-1])",
             f"{chosen} = tf.boolean_mask({flat}, {flat} > {threshold})"]
    use = f"acc = acc + tf.cast(keras.ops.{op}({chosen}), acc.dtype) * 0.1"
    return lines + g.choice([
        [use],
        [f"if {g.pcond()}:", f"    {use}"],
        [f"if tf.size({chosen}) > 0:", f"    {use}"],
    ])


@rule(0.4, max_depth=2)
def library_mode_helper(g):
    """(F342) Keras's `in_tf_graph()` asked by library code in the call, in a
    `tf.map_fn` body and in a `tf.vectorized_map` function."""
    _helper(g, _MODES)
    flat = "tf.reshape(tf.cast(acc, tf.float32), [-1])"
    use = g.choice([
        "acc = mode_scale(acc)",
        "acc = acc * (2.0 if backend_utils.in_tf_graph() else 1.0)",
        f"acc = acc + tf.cast(tf.reduce_sum(tf.map_fn(mode_scale, {flat})), acc.dtype)",
        f"acc = acc + tf.cast(tf.reduce_sum(tf.map_fn(lambda t: mode_scale(t) + 1.0, "
        f"{flat})), acc.dtype)",
        f"acc = acc + tf.cast(tf.reduce_sum(tf.vectorized_map(mode_scale, {flat})), "
        "acc.dtype)",
    ])
    return g.choice([[use], [f"if {g.pcond()}:", f"    {use}"]])


@rule(0.4, max_depth=2)
def library_crossentropy_of_probabilities(g):
    """(F343) A Keras crossentropy of a softmax/sigmoid output (Keras takes a graph
    op's logits, eagerly it clips the probabilities), maybe under a tape."""
    _helper(g, _MODES)
    logits, p = g.fresh("cl"), g.fresh("cp")
    scale = g.choice(["4.0", "12.0", "30.0"])
    setup = [f"{logits} = tf.reshape(tf.cast({g.tensor()}, tf.float32), [1, -1]) * {scale}"]
    loss = g.choice([
        f"keras.losses.categorical_crossentropy(tf.one_hot([0], tf.shape({logits})[1]), "
        f"tf.nn.softmax({logits}))",
        f"keras.losses.sparse_categorical_crossentropy([0], tf.nn.softmax({logits}))",
        f"keras.losses.CategoricalCrossentropy()(tf.one_hot([0], tf.shape({logits})[1]), "
        f"tf.nn.softmax({logits}))",
        f"keras.ops.binary_crossentropy(tf.ones_like({logits}), tf.sigmoid({logits}))",
    ])
    use = f"acc = acc + tf.cast(tf.reduce_sum({p}), acc.dtype) * 0.01"
    if g.chance(0.4):
        tape, grad = g.fresh("ct"), g.fresh("cg")
        return setup + [f"with tf.GradientTape() as {tape}:", f"    {tape}.watch({logits})",
                        f"    {p} = {loss}",
                        f"{grad} = {tape}.gradient(tf.reduce_sum({p}), {logits})",
                        use, f"acc = acc + tf.cast(tf.reduce_sum({grad}), acc.dtype) * 0.01"]
    return setup + [f"{p} = {loss}", use]
