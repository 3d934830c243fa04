"""Assumptions as guards: small records, compiled into one cheap check per graph.

A host-side guard reads a value from its source and compares it with what the
graph was specialized to (type, identity, Python value, length, dtype/shape).
An in-graph guard is an assertion op on a tensor-valued assumption (a branch
taken, a loop's trip count). Each guard describes itself in one readable line.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.ops import EagerTensor as EAGER_TENSOR  # no tensor at import:
# creating one would initialize TF's devices (tf.config could no longer set them up)

from janus.graphgen.sources import Source, environment


@dataclasses.dataclass(frozen=True)
class Guard:
    """One assumption about one value. `kind` picks the check; `expected` is what
    the graph was built for; `where` is the user's line that made the assumption."""

    kind: str  # type | id | value | len | keys | tensor | tensor_list | array
    source: Source
    expected: Any
    where: str = ""

    @property
    def key(self) -> tuple:
        return (self.kind, self.source.expr)

    def describe(self) -> str:
        exp = self.expected
        if self.kind == "type":
            text = f"type({self.source}) is {exp.__qualname__}"
        elif self.kind == "id":
            text = f"{self.source} is <{type(exp).__name__} at {id(exp):#x}>"
        elif self.kind == "value":
            text = f"{self.source} == {exp!r}"
        elif self.kind == "len":
            text = f"len({self.source}) == {exp}"
        elif self.kind == "keys":
            text = f"list({self.source}) == {list(exp)!r}"
        elif self.kind == "tensor":
            text = f"{self.source} is a {_spec_text(exp)} tensor"
        elif self.kind == "array":
            text = f"{self.source} is a {_spec_text(exp)} numpy array"
        else:
            text = f"{self.source} is a non-empty list of {_spec_text(exp)} tensors"
        return text + (f"  [{self.where}]" if self.where else "")


@dataclasses.dataclass(frozen=True)
class InGraphGuard:
    """A tensor-valued assumption checked by an assertion op inside the graph."""

    index: int
    site: Any  # janus.transform.sites.Site
    function: str
    expected: Any

    @property
    def key(self) -> tuple:
        return ("branch", self.function, self.site.id)

    @property
    def tag(self) -> str:
        return f"janus-guard-{self.index}"

    def describe(self) -> str:
        return (f"{self.site.kind} `{self.site.text}` is {self.expected}"
                f"  [{self.site.filename}:{self.site.lineno}]")


def _spec_text(spec: tuple) -> str:
    dtype, shape = spec
    dims = ", ".join("?" if d is None else str(d) for d in shape)
    return f"{dtype}[{dims}]"


def _dims(shape) -> tuple:
    """A shape's dimensions, each an int or None (anything else is refused: these are
    rendered into the guard's code)."""
    if not isinstance(shape, (tuple, list)) or \
            not all(d is None or type(d) is int for d in shape):
        raise ValueError(f"not a tensor shape: {shape!r:.200}")
    return tuple(shape)


def _array_shape(shape: tuple) -> str:
    return "(" + "".join(f"{int(d)}, " for d in _dims(shape)) + ")"


def _shape_test(var: str, shape: tuple) -> str:
    shape = _dims(shape)
    if all(d is not None for d in shape):
        return f"{var}._shape_tuple() == ({''.join(f'{int(d)}, ' for d in shape)})"
    parts = [f"len(s) == {len(shape)}"] + [f"s[{i}] == {int(d)}" for i, d in enumerate(shape)
                                            if d is not None]
    return f"(lambda s: {' and '.join(parts)})({var}._shape_tuple())"


class GuardSet:
    """The host-side guards of one specialization, compiled into `check(args, kwargs)`,
    which returns -1 when all hold, else the index of the first guard that fails."""

    def __init__(self, guards: list[Guard], globals_: dict, cells: tuple):
        self.guards = guards
        self.source_code, self.check = self._compile(guards, globals_, cells)

    def __len__(self) -> int:
        return len(self.guards)

    def describe(self) -> list[str]:
        return [g.describe() for g in self.guards]

    @staticmethod
    def _compile(guards, globals_, cells):
        """The check function's code is built from validated source paths and small ints
        only; every expected value reaches it through its environment (`E3`), never as
        text."""
        env: dict = {**environment(globals_, cells), "EagerTensor": EAGER_TENSOR}
        lines = ["def check(args, kwargs):", "    g = 0", "    try:"]
        names: dict[str, str] = {}

        def value_of(source: Source) -> str:
            name = names.get(source.expr)
            if name is None:
                name = names[source.expr] = f"v{len(names)}"
                lines.append(f"        {name} = {source.code()}")  # validated parts only
            return name

        for index, guard in enumerate(guards):
            if type(guard.source) is not Source:
                raise TypeError(f"a guard on {guard.source!r:.100}, not on a Source")
            lines.append(f"        g = {index}")
            var = value_of(guard.source)
            const = f"E{index}"
            env[const] = guard.expected
            if guard.kind == "type":
                test = f"type({var}) is {const}"
            elif guard.kind == "id":
                test = f"{var} is {const}"
            elif guard.kind == "value":
                env[f"T{index}"] = type(guard.expected)
                test = f"type({var}) is T{index} and {var} == {const}"
            elif guard.kind == "len":
                test = f"len({var}) == {const}"
            elif guard.kind == "keys":
                test = f"list({var}) == {const}"
            elif guard.kind == "tensor":
                dtype, shape = guard.expected
                env[f"D{index}"] = tf.as_dtype(dtype)
                test = (f"type({var}) is EagerTensor and {var}.dtype == D{index} and "
                        + _shape_test(var, shape))
            elif guard.kind == "array":  # a numpy array fed to a segment (host_arrays.py)
                dtype, shape = guard.expected
                env[f"D{index}"] = np.dtype(dtype)
                env["ndarray"] = np.ndarray
                test = (f"type({var}) is ndarray and {var}.dtype == D{index} and "
                        f"{var}.shape == {_array_shape(shape)}")
            elif guard.kind == "tensor_list":
                dtype, shape = guard.expected
                env[f"D{index}"] = tf.as_dtype(dtype)
                test = (f"type({var}) is list and len({var}) > 0 and all(type(e) is EagerTensor"
                        f" and e.dtype == D{index} and {_shape_test('e', shape)} "
                        f"for e in {var})")
            else:
                raise ValueError(f"unknown guard kind {guard.kind}")
            lines.append(f"        if not ({test}): return {index}")
        lines += ["    except Exception:", "        return g", "    return -1"]
        code = "\n".join(lines)
        exec(compile(code, "<janus guards>", "exec"), env)
        return code, env["check"]
