"""Generator rules (v73) from session 27's Keras probes: an optimizer's learning rate set
through its property inside the call (F190), its clip set in a call that runs mixed
(F191), a learning rate schedule's settings (F192), and the settings of the regularizer,
constraint and loss a step calls (F193), written inside a call or by an earlier one.
Keras variables are not in the heap snapshot: each step adds their sum to `acc`.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_KERAS = '''\
import keras

KW = tf.Variable([0.5, -0.5, 0.25])
KOPT = keras.optimizers.SGD(0.05, clipvalue=1.0)
KOPT.build([KW])
KSCHED = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.9)
KSOPT = keras.optimizers.SGD(KSCHED)
KSOPT.build([KW])
KREG = keras.layers.Dense(2, kernel_initializer=keras.initializers.Constant(0.3),
                          kernel_regularizer=keras.regularizers.L2(0.01),
                          kernel_constraint=keras.constraints.MaxNorm(2.0))
KREG.build((None, 3))
KRWOPT = keras.optimizers.SGD(0.1)
KRWOPT.build(KREG.trainable_variables)
KHUBER = keras.losses.Huber(delta=1.0)


def kvec(a):
    """Three float32 numbers summarizing a tensor of any shape and dtype."""
    a = tf.cast(a, tf.float32)
    return tf.stack([tf.reduce_mean(a), tf.reduce_max(a), tf.reduce_min(a) * 0.5])


def kstep(opt, a):
    """One update of KW by `opt`; KW's sum after it."""
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(KW * kvec(a))
    opt.apply_gradients([(tape.gradient(loss, KW), KW)])
    return tf.reduce_sum(KW)


def kfit(a):
    """One step of KREG on a Huber loss and its regularizer's; the loss and weights."""
    with tf.GradientTape() as tape:
        y = KREG(kvec(a)[None])
        loss = KHUBER(tf.zeros_like(y), y) + tf.add_n(KREG.losses)
    grads = tape.gradient(loss, KREG.trainable_variables)
    KRWOPT.apply_gradients(zip(grads, KREG.trainable_variables))
    return loss + 0.01 * tf.add_n([tf.reduce_sum(w) for w in KREG.weights])
'''

_SETS = {
    "lr": ["KOPT.learning_rate = tf.constant(0.01) * float(n % 3 + 1)",
           "KOPT.learning_rate = KOPT.learning_rate * 0.5 + 0.01"],
    "clip": ["KOPT.clipvalue = 0.1 * (n % 4 + 1)", "KOPT.clipvalue = 0.5 if flag else 2.0"],
    "schedule": ["KSCHED.decay_rate = 0.5 + 0.1 * (n % 3)",
                 "KSCHED.initial_learning_rate = 0.05 * (n % 2 + 1)"],
    "held": ["KREG.kernel_regularizer.l2 = 0.01 * (n % 3)",
             "KREG.kernel_constraint.max_value = 0.5 + 0.5 * (n % 3)",
             "KHUBER.reduction = 'sum' if flag else 'sum_over_batch_size'"],
}
_USES = {
    "lr": "acc = acc + tf.cast(kstep(KOPT, acc), acc.dtype) * 0.1",
    "clip": "acc = acc + tf.cast(kstep(KOPT, acc), acc.dtype) * 0.1",
    "schedule": "acc = acc + tf.cast(kstep(KSOPT, acc), acc.dtype) * 0.1",
    "held": "acc = acc + tf.cast(kfit(acc), acc.dtype) * 0.1",
}


@rule(0.5, max_depth=2)
def keras_held_settings(g):
    """(v73, F190-F193) An optimizer's learning rate, clip or schedule, or a layer's
    regularizer, constraint or loss setting, written in the call before the step that
    reads it, after it (read by the next call), under a Python test, or not at all."""
    _helper(g, _KERAS)
    kind = g.choice(sorted(_SETS))
    write, use = g.choice(_SETS[kind]), _USES[kind]
    return g.choice([
        [write, use],
        [use, write],
        [use, f"if {g.pcond()}:", f"    {write}"],
        [use],
    ])


@rule(0.3, max_depth=1, eager=True)
def keras_mixed_update(g):
    """(v73, F191) An optimizer step in a call that runs mixed (a `.numpy()` read): janus
    runs the update as a graph of its own, which must use the settings of this call."""
    _helper(g, _KERAS)
    write = g.choice(_SETS["clip"] + _SETS["lr"][:1] + _SETS["schedule"])
    opt = "KSOPT" if write.startswith("KSCHED") else "KOPT"
    return [g.choice([write, "pass"]),
            f"s.hist.append(round(float(kstep({opt}, acc).numpy()), 4))",
            "acc = acc + tf.cast(tf.reduce_sum(KW), acc.dtype) * 0.1"]
