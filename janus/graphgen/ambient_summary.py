"""tf.summary's ambient state, set outside the jitted step, guarded where a trace reads it.

    writer = tf.summary.create_file_writer(logdir)
    for step in range(n):
        tf.summary.experimental.set_step(step)
        with writer.as_default(), tf.summary.record_if(step % 100 == 0):
            train_step(x)                    # jitted: tf.summary.scalar("loss", loss)

`tf.summary.write` (under every `tf.summary.scalar`...) reads TF's thread-local summary
state in Python while janus traces it: the default writer, the step, and whether to
record (`record_if`). A graph would hold what its trace read. So when a trace calls
tf.summary's code, the state the call *started* with (`entered`: the step may set its
own inside, which the trace follows as it is) is guarded on the host, on each call:
the writer, the `record_if` condition and the distribution strategy's by identity or
value, and the step as a number read like any heap number (by value, then fed as a
scalar once it varies: one graph for every step). A `record_if(callable)` made outside
the step is Python no guard can see (TF calls it while tracing): the trace refuses.
"""
from __future__ import annotations

import contextlib
import weakref

import tensorflow as tf
from tensorflow.python.ops import summary_ops_v2

from janus.errors import ConversionError
from janus.graphgen.sources import Source, global_

_STATE: Source = global_("_summary_state", summary_ops_v2.__name__, summary_ops_v2.__dict__)
_FIELDS = ("writer", "step", "is_recording", "is_recording_distribution_strategy")
_ENTERED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _state() -> tuple:
    state = summary_ops_v2._summary_state
    return tuple(getattr(state, name, None) for name in _FIELDS)


def entered(tracer) -> None:
    """Note the summary state a trace starts with (cheap: four attribute reads)."""
    _ENTERED[tracer] = _state()


def _summary_code(fn) -> bool:
    """Code of tf.summary's (TF's summary ops, TensorBoard's `scalar`, `histogram`...)."""
    module = getattr(fn, "__module__", None) or ""
    if not module and hasattr(fn, "__self__"):
        module = type(fn.__self__).__module__ or ""
    root = module.split(".")[0]
    return root in ("tensorflow", "tensorboard") and "summary" in module


def _guard_condition(tracer, name: str, entry, now) -> None:
    """`record_if`'s condition (or the distribution strategy's) at the call's start."""
    source = _STATE.attr(name)
    if callable(entry) and not isinstance(entry, (tf.Tensor, tf.Variable)):
        if now is entry:
            raise ConversionError("calls tf.summary under a record_if(callable) set outside "
                                  "the function: TF calls it while tracing, reading Python "
                                  "state no guard sees")
        tracer.guard("id", source, entry, "tf.summary's record_if as the call started")
    elif type(entry) is bool:
        tracer.guard("value", source, entry, "tf.summary's record_if as the call started")
    else:
        tracer.guard("id", source, entry, "tf.summary's record_if as the call started")


@contextlib.contextmanager
def calling(tracer, fn):
    """A traced call of tf.summary's code: guard the state the call started with; the
    step, unchanged since, read as a heap number (fed once it varies)."""
    entry = _ENTERED.get(tracer) if _summary_code(fn) else None
    if entry is None:
        yield
        return
    writer, step, recording, distributed = entry
    now = _state()
    tracer.guard("id", _STATE.attr("writer"), writer, "tf.summary's default writer")
    _guard_condition(tracer, "is_recording", recording, now[2])
    _guard_condition(tracer, "is_recording_distribution_strategy", distributed, now[3])
    if type(step) is int and now[1] is step:
        state = summary_ops_v2._summary_state
        fed = tracer.import_value(step, _STATE.attr("step"))
        state.step = fed
        try:
            yield
        finally:
            if state.step is fed:
                state.step = step
        return
    kind = "value" if type(step) in (int, float, bool) else "id"  # (a variable: its reads)
    tracer.guard(kind, _STATE.attr("step"), step, "tf.summary's step as the call started")
    yield
