"""Run a zoo program plainly and under `janus.jit`, call by call, and compare.

A zoo program is a module in this folder written the way researchers write eager TF 2
code: it defines `setup()` (the state: models, optimizers, metrics, Python bookkeeping),
`inputs(i)` (the arguments of call `i`, a tuple, deterministic), `CALLS` (how many
calls) and `STEP`, the function called as `STEP(state, *inputs(i))`; functions and
methods it means to jit are decorated with `JIT` (`janus.jit` on the janus side,
nothing on the plain side, as in the fuzzer's programs). `JITTED(state)`, if defined,
returns the jitted function whose stats count (default `STEP`).

    result = run("p01_mlp")     # runner.Result: divergence None when they agreed

Both sides are loaded as fresh modules with every random seed set alike, set again
before the first call (where layers are built lazily). A program that
sets `RESEED = True` has the seeds set again before each call on each side
(`keras.utils.set_random_seed(1000 + i)`), so its draws from TF's global RNG are the same
on both sides when janus reproduces eager's draws (not by default: setting TF's seed
clears TF's kernel caches, so every graph call would be set up anew, and the timings
would say nothing). After every call: the result, printed output, the exception,
and the heap (the state, the arguments, the module's data globals; Keras layers, models,
optimizers and metrics by their variables and public attributes) are compared with
`tests/fuzz/runner._compare`.
"""
from __future__ import annotations

import contextlib
import io
import os
import time
import types
import warnings

import keras
import numpy as np
import tensorflow as tf

import janus
from tests.fuzz import compare, runner

HERE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY = ("tensorflow", "keras", "tf_keras", "numpy")


def programs() -> list[str]:
    """Names of the zoo's programs (modules `p*.py` here)."""
    return sorted(f[:-3] for f in os.listdir(HERE) if f.startswith("p") and f.endswith(".py"))


def _keras_variable(value) -> bool:
    return isinstance(value, (tf.Variable, keras.Variable))


def _holds_state(value) -> bool:
    """A list or dict of layers or variables (compared through them), not of data."""
    if not isinstance(value, (list, dict)):
        return False
    return any(_keras_variable(v) or isinstance(v, (keras.layers.Layer, tf.Module))
               for v in (value.values() if isinstance(value, dict) else value))


def snapshot(value, seen=None):
    """compare.snapshot, with Keras layers/optimizers/metrics as objects of their
    variables and public attributes (so the comparison sees their state)."""
    seen = set() if seen is None else seen
    if _keras_variable(value):
        return ("variable", tf.as_dtype(value.dtype).name, np.array(value.numpy()))
    if isinstance(value, (keras.layers.Layer, keras.optimizers.Optimizer,
                          keras.metrics.Metric, tf.Module)):
        if id(value) in seen:
            return ("cycle",)
        seen.add(id(value))
        try:
            fields = [(f"var{i}", snapshot(v, seen)) for i, v in enumerate(value.variables)]
            if not type(value).__module__.startswith(_LIBRARY):  # the user's subclass
                fields += [(k, snapshot(v, seen)) for k, v in sorted(vars(value).items())
                           if not k.startswith("_") and not isinstance(v, keras.layers.Layer)
                           and not _holds_state(v) and k not in (
                               "built", "name", "trainable", "dtype_policy")]
            return ("object", type(value).__qualname__, fields)
        finally:
            seen.discard(id(value))
    if type(value) in (list, tuple, dict) or (hasattr(value, "__dict__") and not isinstance(
            value, (types.FunctionType, type, types.ModuleType, types.MethodType)) and
            not type(value).__module__.startswith(_LIBRARY) and not tf.is_tensor(value)
            and not hasattr(value, "__janus_function__")):
        if id(value) in seen:
            return ("cycle",)
        seen.add(id(value))
        try:
            if type(value) in (list, tuple):
                return (type(value).__name__, [snapshot(v, seen) for v in value])
            if type(value) is dict:
                return ("dict", [(repr(k), snapshot(v, seen)) for k, v in value.items()])
            return ("object", type(value).__qualname__,
                    [(k, snapshot(v, seen)) for k, v in sorted(vars(value).items())])
        finally:
            seen.discard(id(value))
    return compare.snapshot(value, seen)


def seed_all(seed: int) -> None:
    """Python's, numpy's, TF's global and Keras's seeds."""
    keras.utils.set_random_seed(seed)


class _Side:
    def __init__(self, name: str, jit: bool):
        seed_all(0)
        self.module = runner.load_file(os.path.join(HERE, name + ".py"),
                                       f"zoo_{name}_{'janus' if jit else 'plain'}_{id(self)}", jit)
        self.state = self.module.setup()
        self.seconds = []

    def call(self, i: int):
        args = self.module.inputs(i)
        out = io.StringIO()
        value, error = None, None
        if i == 0 or getattr(self.module, "RESEED", False):  # (layers built lazily: alike)
            seed_all(1000 + i)
        start = time.perf_counter()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                value = self.module.STEP(self.state, *args)
            except Exception as exc:  # noqa: BLE001 - compared with the other side
                error = exc
        self.seconds.append(time.perf_counter() - start)
        heap = snapshot({"state": self.state, "args": args,
                         "globals": compare.module_heap(self.module)})
        value = None if error is not None else snapshot(value)
        return runner._Outcome(value, error, out.getvalue(), heap)

    def jitted(self):
        fn = getattr(self.module, "JITTED", None)
        return fn(self.state) if fn is not None else self.module.STEP


def run(name: str, calls: int | None = None) -> tuple[runner.Result, dict]:
    """Compare program `name` over its calls; (the result, timings in seconds: eager and
    janus totals, and their medians over the last half of the calls)."""
    with runner.fuzz_settings():
        runner._isolate()
        plain, jit = _Side(name, jit=False), _Side(name, jit=True)
        n = calls or plain.module.CALLS
        divergence, done = None, 0
        start = time.perf_counter()
        for i in range(n):
            expected, actual = plain.call(i), jit.call(i)
            done = i + 1
            found = runner._compare(expected, actual) or runner._leaked_tf_state()
            if found:
                divergence = runner.Divergence(found[0], i, found[1])
                break
        stats = janus.stats(jit.jitted()).as_dict()
        reason = getattr(jit.jitted(), "last_failure_reason", "") or ""
    half = lambda s: float(np.median(s[len(s) // 2:])) if s else 0.0  # noqa: E731
    timing = {"eager": sum(plain.seconds), "janus": sum(jit.seconds),
              "eager_steady": half(plain.seconds), "janus_steady": half(jit.seconds)}
    return runner.Result(done, stats, divergence, time.perf_counter() - start, reason), timing


def main() -> None:
    """`python -m tests.fuzz.zoo.harness [names...]`: run programs, print a line each."""
    import sys
    names = sys.argv[1:] or programs()
    for name in names:
        result, t = run(name)
        s = result.stats
        print(f"{name}: {result.divergence or 'ok'} | calls {s['calls']} graph "
              f"{s['graph_calls']} fell back {s.get('fallback_calls', '?')} | eager "
              f"{t['eager']:.2f}s janus {t['janus']:.2f}s | steady eager "
              f"{t['eager_steady'] * 1e3:.1f}ms janus {t['janus_steady'] * 1e3:.1f}ms "
              f"{result.eager_reason[:200]}", flush=True)


if __name__ == "__main__":
    main()
