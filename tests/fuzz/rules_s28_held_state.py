"""Generator rules (session 28, probes) for state Keras and TensorFlow read in Python
while janus traces their code: the program's functions Keras calls (a Dense's activation,
a Lambda's function, a LearningRateSchedule subclass reading a global and counting its
calls: F245), Keras' private state set through its API (`layer.dtype_policy = ...`,
`AdamW.exclude_from_weight_decay`: F247), tf.summary's state (the writer, `record_if`:
F250; what `tf.summary.write` returns says whether it wrote). A call changes the state
under a test (some calls), it and the later calls read it.

(`tf.config.run_functions_eagerly` (F246) is process-wide: a generated program cannot set
it between its calls without leaking into the worker's next programs: tests only.)

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_HELD = '''\
import keras

HC = {"t": 1.0}


def hc_act(x):
    return tf.tanh(x / HC["t"])


class HcSched(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self):
        self.calls = 0

    def __call__(self, step):
        self.calls += 1
        return HC["t"] * 0.01 + 0.0 * tf.cast(step, tf.float32)


HC_DENSE = keras.layers.Dense(1, activation=hc_act, kernel_initializer="ones",
                              use_bias=False)
HC_LAMBDA = keras.layers.Lambda(lambda h: h * HC["t"])
HC_DENSE.build((None, 1))
HC_VAR = tf.Variable([1.0, 2.0])
HC_SCHED = HcSched()
HC_OPT = keras.optimizers.SGD(HC_SCHED)
HC_OPT.build([HC_VAR])


def hc_dense(a):
    v = tf.reshape(tf.reduce_mean(tf.cast(a, tf.float32)), [1, 1])
    return tf.reduce_sum(HC_LAMBDA(HC_DENSE(v)))


def hc_step():
    HC_OPT.apply_gradients([(tf.constant([0.1, -0.1]), HC_VAR)])
    return tf.reduce_sum(HC_VAR) + 0.001 * HC_SCHED.calls
'''

_HELD_SETS = ['HC["t"] = 1.0 + n % 3', 'HC["t"] = 2.0 if flag else 1.0']
_HELD_USES = ["acc = acc + tf.cast(hc_dense(acc), acc.dtype) * 0.1",
              "acc = acc + tf.cast(hc_step(), acc.dtype) * 0.1"]

_PRIVATE = '''\
import keras

PE_DENSE = keras.layers.Dense(2, kernel_initializer="ones")
PE_DENSE.build((None, 1))
PE_VAR = tf.Variable([1.0, 1.0], name="bias")
PE_OPT = keras.optimizers.AdamW(0.1, weight_decay=0.5)
PE_OPT.build([PE_VAR])


def pe_out(a):
    v = tf.reshape(tf.reduce_mean(tf.cast(a, tf.float32)), [1, 1])
    y = PE_DENSE(v)
    return tf.reduce_sum(tf.cast(y, tf.float32)) + (0.5 if y.dtype == tf.float16 else 0.0)


def pe_decay():
    PE_OPT.apply_gradients([(tf.zeros((2,)), PE_VAR)])
    return tf.reduce_sum(PE_VAR)
'''

_PRIVATE_SETS = [
    'PE_DENSE.dtype_policy = "mixed_float16" if flag else "float32"',
    'PE_OPT.exclude_from_weight_decay(var_names=["bias"] if flag else ["other"])',
]
_PRIVATE_USES = ["acc = acc + tf.cast(pe_out(acc), acc.dtype) * 0.1",
                 "acc = acc + tf.cast(pe_decay(), acc.dtype) * 0.1"]

_SUMMARY = '''\
import tempfile

SW = [tf.summary.create_file_writer(tempfile.mkdtemp()) for _ in range(2)]
SW_ON = [True]


def sw_write(a):
    """1.0 when tf.summary wrote (a default writer, recording), else 0.0."""
    return tf.cast(tf.summary.write("v", tf.reduce_sum(tf.cast(a, tf.float32)), step=0),
                   tf.float32)
'''

_SUMMARY_USES = [
    ["acc = acc + tf.cast(sw_write(acc), acc.dtype)"],
    ["with SW[n % 2].as_default():", "    acc = acc + tf.cast(sw_write(acc), acc.dtype)"],
    ["with SW[0].as_default(), tf.summary.record_if(flag):",
     "    acc = acc + tf.cast(sw_write(acc), acc.dtype)"],
    ["with SW[1].as_default(), tf.summary.record_if(lambda: SW_ON[0]):",
     "    acc = acc + tf.cast(sw_write(acc), acc.dtype)"],
]


def _changed(g, change: str, use) -> list:
    use = [use] if isinstance(use, str) else use
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", *use],
        [*use, f"if {g.pcond()}:", f"    {change}"],
        use,
    ])


@rule(0.4, max_depth=1)
def keras_held_code(g):
    """(F245) A global the program's activation, Lambda and schedule read (Keras calls
    them), changed by some calls; the schedule counts its calls."""
    _helper(g, _HELD)
    return _changed(g, g.choice(_HELD_SETS), g.choice(_HELD_USES))


@rule(0.4, max_depth=1)
def keras_private_state(g):
    """(F247) A layer's dtype policy, AdamW's exclusions set through Keras' API by some
    calls, read by them and the later ones."""
    _helper(g, _PRIVATE)
    return _changed(g, g.choice(_PRIVATE_SETS), g.choice(_PRIVATE_USES))


@rule(0.3, max_depth=1)
def summary_state(g):
    """(F250) tf.summary writes under a default writer and `record_if` (a bool, a
    callable reading a list some calls change)."""
    _helper(g, _SUMMARY)
    use = g.choice(_SUMMARY_USES)
    return _changed(g, "SW_ON[0] = not SW_ON[0]", use) if "SW_ON" in use[0] else use
