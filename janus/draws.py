"""Which numpy random draws a graph can make exactly (janus/graphgen/host_draws.py).

Shared by the break analysis (transform/breaks.py: such a call is no graph break), the
profiler (graphgen/refusals.call_reason: no refusal) and the trace. Only exact
`np.random.RandomState` / `np.random.Generator` objects (no subclass: its methods could
be anything), only these methods, and only with the keywords that keep them one
uniform per number:

    RandomState.random_sample(size) / .random(size) / .rand(*dims)   u
    RandomState.uniform(low, high, size)                              low + (high-low)*u
    RandomState.choice(n, p=p)                                        inverse CDF of u
    Generator.random(size)                                            u
    Generator.uniform(low, high, size)                                low + (high-low)*u
"""
from __future__ import annotations

import numpy as np

from janus import user_attributes

METHODS = {
    np.random.RandomState: frozenset(("random_sample", "random", "rand", "uniform", "choice")),
    np.random.Generator: frozenset(("random", "uniform")),
}
"""The supported draw methods of each RNG type."""

PARAMETERS = {
    "random_sample": ("size",), "random": ("size", "dtype", "out"), "rand": (),
    "uniform": ("low", "high", "size"), "choice": ("a", "size", "replace", "p"),
}
"""Each method's parameters in order (a positional argument's name)."""


def owner_supported(owner, name: str) -> bool:
    """Whether `owner.name(...)` is a supported draw method of an exact numpy RNG."""
    return name in METHODS.get(type(owner), ())


def arguments_supported(name: str, positional: int, keywords: dict) -> bool:
    """Whether a call of method `name` with `positional` arguments and these `keywords`
    (name -> a value, or `...` when not known before the call) can be exact: `choice`
    needs `p` and no `size`/`replace=False`; `Generator.random` no `dtype`/`out`."""
    names = PARAMETERS[name]
    if name != "rand" and positional > len(names):
        return False
    given = dict(zip(names, [...] * positional))
    given.update(keywords)
    if name == "rand":
        return not keywords
    if any(k not in names for k in given):
        return False
    if name == "choice":
        return given.get("p") is not None and given.get("size") is None and \
            given.get("replace", True) is True
    if name == "random":
        return given.get("dtype") in (None, float, np.float64) and given.get("out") is None
    return True


def supported_call(fn, args: tuple, kwargs: dict) -> bool:
    """Whether the call `fn(*args, **kwargs)` is a draw janus makes in a graph."""
    owner = user_attributes.get(fn, "__self__")
    name = user_attributes.get(fn, "__name__", "")
    return owner_supported(owner, name) and arguments_supported(name, len(args), kwargs)
