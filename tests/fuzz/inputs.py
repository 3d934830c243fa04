"""Call sequences as plain data, and the arguments built from them.

A call spec is a dict: {"shape": [3], "dtype": "float32", "seed": 1, "len": 2,
"n": 1, "flag": True, "obj": "main" | "alt" | "new"}. `x` and the items of `xs`
are built from (shape, dtype, seed); `obj` picks the state object passed as `s`
("new" makes a fresh one on each side). A sequence first repeats one spec so janus
profiles and then runs graphs, then changes one thing at a time.
"""
from __future__ import annotations

import random

import numpy as np
import tensorflow as tf

STABLE_CALLS = 4

_SHAPES = [[3], [4], [2, 3], [1], [5]]


def _change(rng: random.Random, spec: dict) -> dict:
    spec = dict(spec)
    what = rng.choice(["values", "shape", "dtype", "len", "len", "n", "n", "flag", "obj",
                       "obj"])
    if what == "values":
        spec["seed"] = rng.randint(0, 99)
    elif what == "shape":
        spec["shape"] = rng.choice([s for s in _SHAPES if s != spec["shape"]])
    elif what == "dtype":
        spec["dtype"] = "float64" if spec["dtype"] == "float32" else "float32"
    elif what == "len":
        spec["len"] = rng.choice([v for v in (0, 1, 2, 3) if v != spec["len"]])
    elif what == "n":
        spec["n"] = rng.choice([v for v in range(5) if v != spec["n"]])
    elif what == "flag":
        spec["flag"] = not spec["flag"]
    else:
        spec["obj"] = rng.choice([o for o in ("main", "alt", "new") if o != spec["obj"]])
    return spec


def call_sequence(rng: random.Random, n_calls: int | None = None) -> list[dict]:
    """STABLE_CALLS identical calls, then changes (each kept for 1-3 calls)."""
    n_calls = n_calls or rng.randint(9, 13)
    spec = {"shape": rng.choice(_SHAPES[:3]), "dtype": "float32", "seed": rng.randint(0, 99),
            "len": rng.randint(0, 2), "n": rng.randint(0, 3), "flag": rng.random() < 0.5,
            "obj": "main"}
    calls = [dict(spec) for _ in range(min(STABLE_CALLS, n_calls))]
    while len(calls) < n_calls:
        spec = _change(rng, spec)
        for _ in range(rng.randint(1, 3)):
            if len(calls) < n_calls:
                calls.append(dict(spec))
    return calls


def tensor(shape, dtype: str, seed: int):
    values = np.random.RandomState(seed).uniform(-1.0, 1.0, size=shape)
    return tf.constant(values.astype(dtype))


def arguments(spec: dict):
    """(x, xs, n, flag) of a call spec; tensors are shared, build `xs` per side."""
    x = tensor(spec["shape"], spec["dtype"], spec["seed"])
    xs = [tensor(spec["shape"], spec["dtype"], spec["seed"] * 31 + i + 1)
          for i in range(spec["len"])]
    return x, xs, spec["n"], spec["flag"]
