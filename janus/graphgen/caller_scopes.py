"""The caller's name scope and device scope, guarded and entered by the trace (F362).

    with tf.name_scope("train"):             # the training loop's scope, around the call
        step(x)                              # jitted: tf.summary.scalar("loss", l) writes
                                             # "train/loss"; tf.get_current_name_scope()
    with tf.device("/cpu:0"):                # is "train"; its ops run where the caller
        step(x)                              # put them

Eagerly the step's ops are made under the eager context's current name scope and device
(`context.context().scope_name`, `.device_name`, thread-local); a tf.function traces its
graph at the root scope on no device, so a graph would name its summaries "loss" and
answer "" for the scope. So the trace enters both as the call found them (the scope as
an absolute one, "train/": its ops, summary tags and `get_current_name_scope()` are
plain Python's), and the graph keeps host guards that they are the same on each call
(two attribute reads of TF's context): a call under another scope runs another graph.
"""
from __future__ import annotations

import contextlib

import tensorflow as tf
from tensorflow.python.eager import context

from janus.graphgen.sources import Source

_CONTEXT = Source(("module", context.__name__, "_context"), ())
_DEVICE = _CONTEXT.attr("device_name")


def current() -> tuple[str, str]:
    """The caller's name scope and device as the eager context has them now."""
    eager = context.context()
    return eager.scope_name, eager.device_name


@contextlib.contextmanager
def inside(scope: str, device: str):
    """Trace under `scope` (absolute) and `device` as `current()` gave them (no-op for the
    root on no device). For a graph janus makes outside a trace of its own (an optimizer
    update's: fallback/mixed.py), which keys its graphs by `current()` instead of
    guarding."""
    with contextlib.ExitStack() as stack:
        if scope:  # ("train/": absolute, ends with "/")
            stack.enter_context(tf.name_scope(scope if scope.endswith("/") else scope + "/"))
        if device:
            stack.enter_context(tf.device(device))
        yield


@contextlib.contextmanager
def entered(tracer):
    """Trace under the caller's name scope and device as the call found them (a no-op
    for a call at the root on no device, the usual case), and guard them (after the
    trace's own guards: the arguments' are checked first)."""
    scope, device = current()
    with inside(scope, device):
        yield
    tracer.guard("value", _CONTEXT.attr("scope_name"), scope, "the caller's tf.name_scope")
    tracer.guard("value", _DEVICE, device, "the caller's tf.device")


def guarded_device(guards) -> str:
    """The caller's tf.device a specialization was traced under, from its host guards
    (`spec.guards.guards`; "" for none): every call it runs is made under it. Its XLA
    variant is built and compiled there (graphgen/xla.py, F375)."""
    for guard in guards:
        if guard.kind == "value" and guard.source.expr == _DEVICE.expr:
            return guard.expected
    return ""
