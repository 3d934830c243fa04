"""Generator rules (session 32) from session 32's round on ambient library state (F361-F363):
Keras' global SeedGenerator replaced between draws (`keras.utils.set_random_seed`,
`keras.backend.clear_session`) while the step draws unseeded `keras.random.*`; a jitted
helper called under the caller's `tf.name_scope` that reads its scope or makes a summary
tag; a loop over a tf.distribute dataset, a checkpoint saved in the step and a variable
written in the program's own tf.cond branch (refused up front, with what they are).

Each call re-seeds before it draws (the plain and janus sides run in one process, call
by call, and share Keras' global generator), in a statement janus runs plainly (its
`.numpy()`), so the draws after it may be a graph's that must follow the new generator.

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_RESEED = '''\
import keras


@JIT
def kdraws(t, which):
    """Unseeded draws from Keras' global SeedGenerator."""
    if which == 0:
        return t + keras.random.normal(tf.shape(t))
    if which == 1:
        return t * keras.random.uniform(tf.shape(t))
    return keras.random.dropout(t + 1.0, 0.5)


def kreseeded(n, t, which):
    """Keras re-seeded (on some calls its session cleared first), one draw made plainly
    (the global SeedGenerator exists), then the jitted draws: a janus graph must draw
    from the generator of now."""
    if n % 4 == 3:
        keras.backend.clear_session(free_memory=False)
    keras.utils.set_random_seed(n % 3 + 1)
    first = float(keras.random.uniform([]).numpy())
    return kdraws(tf.cast(t, tf.float32), which), first
'''


@rule(0.4, max_depth=2, eager=True)
def keras_reseeded_draws(g):
    """(F361) Keras re-seeded in the call (plain code, its `.numpy()`), then a jitted
    helper's unseeded draws from its global generator: a graph must draw from the new one.
    (Every call re-seeds: the plain and janus sides share the generator.)"""
    _helper(g, _RESEED)
    d, z = g.fresh("kd"), g.fresh("kz")
    return [f"{d}, {z} = kreseeded(n, acc, {g.choice(['0', '1', '2', 'n % 3'])})",
            f"acc = acc + tf.cast({d}, acc.dtype) * 0.1 + {z} * 0.01"]


_SCOPED = '''\
@JIT
def kscoped(t):
    """Tensor work that reads the caller's name scope and makes a summary tag."""
    with tf.summary.experimental.summary_scope("loss") as (tag, _):
        return tf.reduce_sum(t) * 0.5, tag, tf.get_current_name_scope()


def kscope_call(t, name):
    """The jitted helper called under a name scope by plain code (its `.numpy()`)."""
    if name:
        with tf.name_scope(name):
            v, tag, cur = kscoped(t)
    else:
        v, tag, cur = kscoped(t)
    return float(v.numpy()), tag, cur
'''


@rule(0.4, max_depth=2)
def caller_name_scope(g):
    """(F362) A jitted helper called under the caller's `tf.name_scope` (which one
    varies per call, or none): its scope and summary tag are the caller's."""
    _helper(g, _SCOPED)
    v, tag, cur = g.fresh("sv"), g.fresh("tag"), g.fresh("cur")
    scope = g.choice(["'train' if flag else 'eval'", "'outer'", "['', 'a', 'b/c'][n % 3]"])
    return [f"{v}, {tag}, {cur} = kscope_call(acc, {scope})",
            f"acc = acc + tf.cast({v}, acc.dtype) * 0.1",
            f"out.append({tag})", f"out.append({cur})"]


_REFUSED = '''\
import os
import tempfile

DSTRAT = tf.distribute.OneDeviceStrategy("/cpu:0")
DDATA = DSTRAT.experimental_distribute_dataset(
    tf.data.Dataset.range(4).map(lambda i: tf.cast(i, tf.float32)).batch(2))
CKV = tf.Variable(1.0)
CKPT = tf.train.Checkpoint(v=CKV)
CKMGR = tf.train.CheckpointManager(CKPT, tempfile.mkdtemp(), max_to_keep=1)
'''

_REFUSED_LINES = [
    ["for db in DDATA:", "    acc = acc + tf.cast(tf.reduce_sum(db), acc.dtype) * 0.01"],
    ["CKV.assign_add(0.5)", "out.append(os.path.basename(CKMGR.save()))"],
    ["acc = acc + tf.cast(tf.cond(tf.reduce_sum(acc) > 0.0, lambda: CKV.assign_add(1.0),",
     "                            lambda: CKV.read_value()), acc.dtype) * 0.01"],
]


@rule(0.3, max_depth=2, eager=True)
def refused_library_work(g):
    """(F363) A loop over a tf.distribute dataset, a checkpoint saved, a variable written
    in the program's tf.cond branch: run plainly, the rest of the step as graphs."""
    _helper(g, _REFUSED)
    lines = g.choice(_REFUSED_LINES)
    if g.chance(0.4):
        return [f"if {g.pcond()}:"] + ["    " + line for line in lines]
    return lines
