"""The caller's tf.name_scope and tf.device around a jitted call (graphgen/caller_scopes.py,
F362): the step's summary tags and `tf.get_current_name_scope()` are plain Python's, and
a call under another scope runs under its own graph; compared with plain Python."""
import contextlib
import io

import tensorflow as tf

import janus
from janus.fallback import mixed
from tests.differential import assert_same

X = tf.ones([4, 4])


class State:
    def __init__(self):
        self.w = tf.Variable(tf.ones([4, 4]) * 0.5)
        self.scopes = []


def _step(state, x):
    y = tf.matmul(tf.matmul(x, state.w), state.w)
    with tf.name_scope("inner"):
        inner = tf.get_current_name_scope()
    state.w.assign_add(x * 0.01)
    with tf.summary.experimental.summary_scope("loss") as (tag, _):
        state.scopes.append(tag)
        return tf.reduce_sum(y), tag, inner, tf.get_current_name_scope()


def _under(fn):
    def call(state, x, scope, device):
        with contextlib.ExitStack() as stack:
            if scope is not None:
                stack.enter_context(tf.name_scope(scope))
            if device is not None:
                stack.enter_context(tf.device(device))
            return fn(state, x)
    return call


def _assert_same(calls):
    jitted = janus.jit(_step)
    stats = assert_same(_under(_step), calls, State, jitted=_under(jitted), stats_of=jitted)
    assert stats.graph_calls >= len(calls) // 2, stats
    return jitted


def test_callers_name_scope_around_the_call():
    scopes = [None, None, None, "train", "train", "eval", "train", None, "train", "eval",
              "eval", None, "train"]
    _assert_same([(X * (1 + 0.1 * i), scope, None) for i, scope in enumerate(scopes)])


def test_callers_device_around_the_call():
    scopes = [None, "a", "a", None, "a", "a", None]
    calls = [(X, scope, None) for scope in scopes] + \
        [(X, scope, "/cpu:0") for scope in ("a", "a", None, None, "a")]
    jitted = _assert_same(calls)
    with tf.device("/cpu:0"), contextlib.redirect_stdout(io.StringIO()) as out:
        janus.explain(jitted, State(), X)
    assert "device_name" in out.getvalue()


W = tf.ones([128, 128]) * 0.01


def _split_step(state, x):
    # a graph break (`print(...numpy())`) between two stretches of tensor work: janus
    # splits it; each stretch's segment graph enters the caller's scope as a whole trace
    y = tf.tanh(tf.matmul(tf.tanh(tf.matmul(tf.tanh(tf.matmul(x, W)), W)), W))
    y = tf.tanh(tf.matmul(tf.tanh(tf.matmul(y, W)), W)) + tf.tanh(tf.matmul(y, W))
    with tf.name_scope("inner"):
        inner = tf.get_current_name_scope()
    print(float(tf.reduce_sum(y)) > 0)
    z = tf.tanh(tf.matmul(tf.tanh(tf.matmul(tf.tanh(tf.matmul(y, W)), W)), W))
    z = tf.tanh(tf.matmul(tf.tanh(tf.matmul(z, W)), W)) + tf.tanh(tf.matmul(z, W))
    with tf.summary.experimental.summary_scope("loss") as (tag, _):
        state.scopes.append(tag)
        return tf.reduce_sum(z), inner, tag, tf.get_current_name_scope()


def test_split_function_under_the_callers_name_scope():
    jitted = janus.jit(_split_step)
    scopes = ["train", None, "eval", "train", None] * 6
    assert_same(_under(_split_step), [(tf.ones([128, 128]) * 0.01, scope, None)
                                      for scope in scopes],
                State, jitted=_under(jitted), stats_of=jitted)
    segmented = jitted.segmented
    assert segmented, "split at its break"
    assert any(janus.stats(s.jit).graph_calls for s in segmented.all_segments()
               if s.jit is not None), segmented.report()


def test_optimizer_update_graph_under_the_callers_name_scope():
    # the fallback's optimizer update graph (fallback/mixed.py) is traced per caller's
    # scope and device, under them, as eager's update runs
    opt = tf.keras.optimizers.SGD(0.1)
    v = tf.Variable(tf.ones([3]))
    for scope in ("train", None, "train"):
        with tf.name_scope(scope) if scope else contextlib.nullcontext():
            mixed._apply_gradients_as_graph(opt, [(tf.ones([3]), v)], {})
    keys = [k for k in mixed._update_graphs if k[0] == id(opt)]
    assert sorted(k[-1][0] for k in keys) == ["", "train/"], keys
