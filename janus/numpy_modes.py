"""TensorFlow's numpy behavior as janus meets it (F393): process-wide settings that
decide the dtypes (and the kind of tensor) TF's ops give, which a trace would bake in.

    tf.experimental.numpy.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    x = tf.constant([1.0, 2.0])          an EagerWeakTensor (weakly typed float32)
    tf.tanh(x + f) * 2.0                 f a Python float: weak, the result float32 and weak

Under the "all" and "safe" modes TF's ops take Python numbers and `WeakTensor`s as weakly
typed and hand back weak tensors. janus's graph cannot do the same: its stand-in for a fed
number is no Python number to TF's weak-type inference (which hashes it), a WeakTensor
argument is no tensor janus feeds (guarded by identity), and a graph's weak results come
back as `GraphWeakTensor`s; some dtypes came out otherwise too (`tf.constant(f) + x`:
float64 where eagerly float32). So under these modes every call runs plainly, decided
before profiling or tracing (`weak_promotion`, one read of TF's mode per call), the
reason recorded (`WEAK_PROMOTION`; later calls as a settled function's: `quick_epoch`):
never slower than a graph per value, never wrong.

The "legacy" mode (`experimental_enable_numpy_behavior()`'s default: numpy's promotion
rules) promotes alike in graphs and eagerly, so graphs are made there. The mode,
`prefer_float32`, `allow_float64` and numpy-style slicing are read once per call that may
run a graph (`settings`): graphs traced under other settings are dropped (the program
changed them between calls; TensorFlow asks that it be done at the program's start), and
a graph cache's warm start takes only graphs recorded under the same (`describe`). A call
that changes them itself (`SETTERS`) runs plainly.
"""
from __future__ import annotations

from tensorflow.python.framework import ops
from tensorflow.python.ops.numpy_ops import np_config, np_dtypes, np_math_ops

from janus import events
from janus.errors import EagerRun, FallbackCategory
from janus.fallback import settled
from janus.stats import OTHER

SETTERS = (np_config.enable_numpy_behavior, ops.set_dtype_conversion_mode,
           np_dtypes.set_prefer_float32, np_dtypes.set_allow_float64,
           ops.enable_numpy_style_slicing, np_math_ops.enable_numpy_methods_on_tensor)
"""What changes the settings: called in a trace, it refuses (graphgen/global_settings.py:
the graph would not change them, and the trace ran under other settings than the call)."""

_ALL, _SAFE = ops.PromoMode.ALL, ops.PromoMode.SAFE

WEAK_PROMOTION = EagerRun(
    FallbackCategory.UNSUPPORTED,
    "TensorFlow's numpy behavior with dtype_conversion_mode 'all' or 'safe' is on: its ops "
    "take Python numbers and WeakTensors as weakly typed, which janus's graphs do not "
    "reproduce (every call runs plainly while the mode is on: janus/numpy_modes.py)",
    "plain")


def weak_promotion() -> bool:
    """Whether TF's ops promote weakly typed values now ("all" or "safe" mode)."""
    mode = ops.get_dtype_conversion_mode()  # (~0.1 us; an enum's hash costs 0.3 us)
    return mode is _ALL or mode is _SAFE


def settings() -> tuple:
    """TF's numpy-behavior settings a trace bakes in (compared between calls)."""
    return (ops.get_dtype_conversion_mode(), np_dtypes.is_prefer_float32(),
            np_dtypes.is_allow_float64(), getattr(ops, "_numpy_style_slicing", None))


_DEFAULT = (ops.PromoMode.OFF, False, True, False)


def describe() -> str:
    """The settings as text for a graph cache's versions (cache/record.py: a warm start
    restores only graphs recorded under the same ones); "" for TF's defaults."""
    now = settings()
    if now == _DEFAULT:
        return ""
    return (f"{ops.promo_mode_enum_to_string(now[0])} prefer_float32={now[1]} "
            f"allow_float64={now[2]} numpy_slicing={now[3]}")


def quick_epoch(jit) -> tuple | None:
    """After `jit` ran a call plainly for `WEAK_PROMOTION` (its full path: the reason
    counted, the event announced): what lets the next such calls run at once, counted
    alike (`JitFunction.__call__`; ~1 us where the full path costs ~20 us), while
    janus's config and the event subscribers stay (fallback/settled.py's epoch). None
    where each call must take the full path (a listener of every fallback, strict mode,
    a multi-worker strategy)."""
    if jit.config.strict or events.hears_repeats("fallback") or \
            jit.profile.collective_strategy is not None:
        return None
    reason = WEAK_PROMOTION.category.value
    if reason not in jit.stats.fallback_reasons:  # (counted as OTHER: at the limit)
        reason = OTHER
    return settled.epoch() + (reason,)
