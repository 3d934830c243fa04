"""janus: speculative graph execution for imperative TensorFlow programs (JANUS, NSDI'19).

    @janus.jit
    def train_step(model, batch): ...

The first calls run imperatively while janus profiles them; later calls run as
TensorFlow graphs specialized to what the profile saw, guarded so that any call
the graph does not fit runs imperatively instead, with the same results.
"""
import functools

from janus.config import Config, config
from janus.errors import ConversionError, JanusFallbackError, JanusInternalError
from janus.stats import Stats

__version__ = "0.1.0"

from janus import cache, logs  # noqa: E402,F401  (on-disk graph cache recorder; JANUS_LOGS)

_LAZY = {"jit", "JitFunction", "BoundJitFunction", "JanusWarning"}


def __getattr__(name):
    """TensorFlow is imported on first use of the jit API, so `janus cache ...` starts fast."""
    if name == "jit":
        from janus import jit_api
        return jit_api.jit
    if name in _LAZY:
        from janus import function
        return getattr(function, name)
    raise AttributeError(f"module 'janus' has no attribute {name!r}")


def _jitted(fn):
    """The JitFunction of what `janus.jit` returned (a partial, staticmethod, classmethod
    or partialmethod of one too: jit_api.py `jit`)."""
    from janus.function import BoundJitFunction, JitFunction

    seen = fn
    while isinstance(fn, (functools.partial, functools.partialmethod)) or \
            isinstance(fn, (staticmethod, classmethod)):
        fn = fn.func if isinstance(fn, (functools.partial, functools.partialmethod)) \
            else fn.__func__
    if isinstance(fn, JitFunction):
        return fn
    if isinstance(fn, BoundJitFunction):
        return fn.jit
    raise TypeError(f"{seen!r} is not a janus.jit function")


def stats(fn) -> Stats:
    """Counters of a jitted function: calls as graph / profiled / fell back, timings."""
    return _jitted(fn).stats


def deciding(fn) -> list:
    """What janus still decides for a jitted function (profiling, a trial of its graph
    against plain Python or XLA, a segment on trial...), a line each: empty once its
    calls run the way they will keep running. Benchmarks measure from then on."""
    return _jitted(fn).deciding()


def explain(fn, *args, **kwargs) -> str:
    """Print and return what janus decided (and would decide for these arguments)."""
    from janus.function import BoundJitFunction

    if isinstance(fn, functools.partial):  # (its arguments first, as its call has them)
        return explain(fn.func, *fn.args, *args, **{**fn.keywords, **kwargs})
    if isinstance(fn, BoundJitFunction):
        text = fn.explain(*args, **kwargs)
    else:
        text = _jitted(fn).explain(*args, **kwargs)
    print(text)
    return text


__all__ = ["Config", "ConversionError", "JanusFallbackError", "JanusInternalError",
           "JanusWarning", "JitFunction",
           "Stats", "config", "deciding", "explain", "jit", "stats"]
