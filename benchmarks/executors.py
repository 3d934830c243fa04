"""Executors: the ways one workload's unmodified step function is run.

eager        ``step`` itself
tf.function  ``tf.function(step)`` -- what users try first
janus        ``janus.jit(step)``: with its defaults (XLA off)
janus_xla    ``janus.jit(step, xla=True)``: XLA tried per specialization (compiled in the
             background, kept where real calls measure it faster); opt-in, its rounding
             differs from TensorFlow's
janus_noxla  ``janus.jit(step, xla=False)``
expert       the workload's hand-written symbolic version
expert_xla   the same with ``jit_compile=True``
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from models.common import Workload

EXECUTORS = ("eager", "tf.function", "janus", "janus_xla", "janus_noxla", "expert",
             "expert_xla")
DEFAULT_EXECUTORS = ("eager", "tf.function", "janus", "expert")


class Unavailable(Exception):
    """The executor cannot run this workload at all (not an error of the executor)."""


@dataclasses.dataclass
class Prepared:
    """A ready-to-call executor: ``call(*batch) -> loss`` and counters read after the run."""

    call: Callable[..., Any]
    info: Callable[[], dict] = lambda: {}
    settle: Callable[[], None] = lambda: None  # after the warm-up: wait for background work
    settled: Callable[[], bool] = lambda: True  # False while calls still decide something


def prepare(name: str, workload: Workload, state: Any) -> Prepared:
    """Wrap ``workload.step`` (or build the expert) for executor ``name`` on ``state``.

    Raises `Unavailable` when the executor does not exist for this workload
    (no expert, janus not importable); any other exception is the executor's error.
    """
    step = workload.step
    if name == "eager":
        return Prepared(lambda *batch: step(state, *batch))
    if name == "tf.function":
        import tensorflow as tf

        fn = tf.function(step)
        return Prepared(lambda *batch: fn(state, *batch),
                        lambda: {"retraces": int(fn.experimental_get_tracing_count())})
    if name in ("janus", "janus_xla", "janus_noxla"):
        return _prepare_janus(step, state, xla={"janus": None, "janus_xla": True,
                                                "janus_noxla": False}[name])
    if name in ("expert", "expert_xla"):
        if workload.expert is None:
            raise Unavailable(f"{workload.name} has no expert version")
        call = workload.expert(state, jit_compile=True) if name == "expert_xla" else workload.expert(state)
        return Prepared(call)
    raise ValueError(f"unknown executor {name!r}; known: {', '.join(EXECUTORS)}")


JANUS_STAT_FIELDS = ("calls", "generations", "fallback_calls", "graph_calls", "profile_calls",
                     "generation_failures", "time_profiling", "time_generating", "time_graph",
                     "time_fallback", "time_guards")


def _prepare_janus(step: Callable, state: Any, xla: Optional[bool] = None) -> Prepared:
    try:
        import janus
    except Exception as e:  # janus is developed in parallel; it may not import yet
        raise Unavailable(f"import janus failed: {type(e).__name__}: {e}") from None
    jit = getattr(janus, "jit", None)
    if jit is None:
        raise Unavailable("janus has no jit() yet")
    fn = jit(step) if xla is None else jit(step, xla=xla)

    def settle():
        """Wait for XLA compilations janus started in the background (untimed, like
        tf.function's trace in the warm-up; the harness reports the wait)."""
        try:
            from janus.graphgen import xla as janus_xla
        except ImportError:
            return
        janus_xla.compiler.wait_idle(300)

    def specializations():
        return list(getattr(getattr(fn, "jit", fn), "specializations", None) or [])

    last = {"learning": True}

    def progress() -> tuple:
        stats = janus.stats(fn)
        return (stats.profile_calls, stats.generations, stats.generation_failures,
                getattr(stats, "segment_graph_calls", 0))

    def call(*batch):
        before = progress()
        out = fn(state, *batch)
        after = progress()
        split = getattr(janus.stats(fn), "segmented_calls", 0)
        # still learning: it profiled or traced, or ran split without a segment graph
        last["learning"] = after[:3] != before[:3] or bool(split) and after[3] == before[3]
        return out

    def settled():
        """No decision under way: the last call neither profiled nor traced (nor ran
        split with no segment graph), and janus decides nothing more (`janus.deciding`:
        trials of graph vs plain or XLA alternate real calls, a split function's segments
        are measured...)."""
        deciding = getattr(janus, "deciding", None)
        return not last["learning"] and not (deciding(fn) if deciding else any(
            getattr(s, "trial", None) is not None or
            getattr(s, "xla", "").startswith("compiling") for s in specializations()))

    def info():
        out = janus_stats(janus, fn)
        out["janus_xla"] = [getattr(s, "xla", "") for s in specializations()]
        return out

    return Prepared(call, info, settle, settled)


def janus_stats(janus: Any, fn: Any) -> dict:
    """``{"janus_stats": ...}``: ``janus.stats(fn)`` as a plain dict of the known
    counters (missing ones omitted), None without ``janus.stats``, or an error."""
    stats_fn = getattr(janus, "stats", None)
    if stats_fn is None:
        return {"janus_stats": None}
    try:
        stats = stats_fn(fn)
    except Exception as e:
        return {"janus_stats": {"error": f"{type(e).__name__}: {e}"}}
    if isinstance(stats, dict):
        get = stats.get
    else:
        get = lambda key, default=None: getattr(stats, key, default)  # noqa: E731
    out = {}
    for key in JANUS_STAT_FIELDS:
        value = get(key, None)
        if isinstance(value, (int, float)):
            out[key] = value
    for key in ("guard_failures", "fallback_reasons"):
        value = get(key, None)
        if value:
            out[key] = {str(k): v for k, v in dict(value).items()}
    return {"janus_stats": out}
