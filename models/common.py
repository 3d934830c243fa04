"""The `Workload` interface shared by every model, and small helpers.

A workload bundles everything a benchmark or a differential test needs to run
one model's training step under different executors (eager, `tf.function`,
`janus.jit`, a hand-written expert graph) on identical data from identical
initial weights.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Optional

import numpy as np

SIZES = ("full", "quick", "tiny")


@dataclasses.dataclass
class Workload:
    """One model's training step plus the means to run it reproducibly.

    make_state: fresh model + optimizer(s) + Python-side state; the same seed
        always gives the same initial weights.
    step: the plain imperative step, ``step(state, *batch) -> loss``. Executors
        wrap this very function object (``tf.function(step)``, ``janus.jit(step)``).
    batches: ``batches(n)`` -> list of n argument tuples, deterministic.
    variables: ``variables(state)`` -> the variables to compare across executors.
    expert: ``expert(state, jit_compile=False)`` -> ``callable(*batch) -> loss``,
        a hand-written symbolic version computing the same math.
    items_per_step / item_name: what one step processes, for items/s.
    tolerance: losses of another executor count as equal to eager when
        ``|loss - eager| <= tolerance * max(1, |eager|)``.
    """

    name: str
    category: str
    make_state: Callable[[], Any]
    step: Callable[..., Any]
    batches: Callable[[int], list]
    variables: Callable[[Any], list]
    expert: Optional[Callable[..., Callable[..., Any]]] = None
    items_per_step: int = 1
    item_name: str = "steps"
    tolerance: float = 1e-4
    size: str = "full"
    params: dict = dataclasses.field(default_factory=dict)


def check_size(size: str) -> str:
    """Validate a size name ("full" | "quick" | "tiny")."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; expected one of {', '.join(SIZES)}")
    return size


def seed_everything(seed: int) -> None:
    """Seed Python, numpy, TensorFlow and Keras so variable initialisation is reproducible."""
    import tensorflow as tf

    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)
    try:
        import keras

        keras.utils.set_random_seed(seed)
    except Exception:  # pragma: no cover - keras missing or too old
        pass


def glorot(rng: np.random.Generator, shape: tuple[int, ...], name: str):
    """A float32 tf.Variable with Glorot-uniform values drawn from a numpy RNG."""
    import tensorflow as tf

    fan_in, fan_out = shape[0], shape[-1]
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return tf.Variable(rng.uniform(-limit, limit, size=shape).astype(np.float32), name=name)


def zeros(shape: tuple[int, ...], name: str):
    """A float32 tf.Variable of zeros."""
    import tensorflow as tf

    return tf.Variable(np.zeros(shape, np.float32), name=name)


def to_float(x: Any) -> float:
    """A loss (tensor, numpy scalar or float) as a Python float."""
    if hasattr(x, "numpy"):
        x = x.numpy()
    return float(np.asarray(x))


def run_script(workload_factory: Callable[..., Workload], argv: Optional[list[str]] = None) -> None:
    """Command line for ``python -m models.X [--janus] [--steps N] [--size S] [--seed K]``.

    Trains a few steps of the workload eagerly, or with ``--janus`` through
    ``janus.jit(step)`` (janus is imported only then).
    """
    import argparse
    import time

    parser = argparse.ArgumentParser(description=f"train a few steps of {workload_factory.__module__}")
    parser.add_argument("--janus", action="store_true", help="wrap the step with janus.jit")
    parser.add_argument("--steps", type=int, default=5, help="training steps to run")
    parser.add_argument("--size", choices=SIZES, default="full", help="model/data size")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    workload = workload_factory(size=args.size, seed=args.seed)
    state = workload.make_state()
    step = workload.step
    if args.janus:
        import janus  # lazily: the models must run without it

        step = janus.jit(step)
    mode = "janus" if args.janus else "eager"
    print(f"{workload.name} ({args.size}, {mode}): {args.steps} steps of "
          f"{workload.items_per_step} {workload.item_name}")
    for i, batch in enumerate(workload.batches(args.steps)):
        start = time.perf_counter()
        loss = to_float(step(state, *batch))
        elapsed = time.perf_counter() - start
        print(f"step {i}: loss {loss:.5f}  {elapsed * 1000:.1f} ms")
    if args.janus:
        stats = getattr(__import__("janus"), "stats", None)
        if stats is not None:
            print(f"janus: {stats(step)}")
