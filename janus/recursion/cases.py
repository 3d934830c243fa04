"""Cases of a recursive function, learned while profiling.

An invocation's *case* is what its Python-level control flow depended on: the
structural attributes of its node argument it tested (`node.is_leaf == True`,
`node.left` is a Node) — plus what it read as per-node data (`node.word`, an int)
and which attributes it recursed on (`node.left`, `node.right`). Nodes of the
same case run the same code, so one trace of the body per case serves every node
of every tree: the SubGraph's guards are on this schema, never on a tree's shape.
"""
from __future__ import annotations

import dataclasses

from janus.tensors import is_tensor

_STRUCTURAL = (bool, str, type(None))
_DATA = (int, float)


@dataclasses.dataclass(frozen=True)
class Case:
    tests: tuple        # ((path, expected), ...): expected is a value or ("type", T)
    inputs: tuple       # ((path, python type), ...) per-node data
    children: tuple     # (path, ...) in call order
    result: object      # nest of (dtype, shape) of the invocation's result

    def describe(self) -> str:
        tests = ", ".join(f"node.{p} {'is a ' + e[1].__name__ if isinstance(e, tuple) else '== ' + repr(e)}"
                          for p, e in self.tests) or "always"
        inputs = ", ".join(f"node.{p}" for p, _ in self.inputs) or "none"
        children = ", ".join(f"node.{p}" for p in self.children) or "none"
        return f"when {tests}: inputs {inputs}; InvokeOps on {children}"


def _is_tensor(value) -> bool:
    import tensorflow as tf
    return is_tensor(value) or isinstance(value, tf.Variable)


class CaseRecorder:
    """Watches one invocation's reads of its node argument (during profiling)."""

    def __init__(self, node, passed: tuple = ()):
        self.node = node
        self.passed = passed  # what the invocation got besides its node (self_calls.py)
        self.paths: dict[int, str] = {id(node): ""}
        self.keep = [node]
        self.tests: dict[str, object] = {}
        self.inputs: dict[str, type] = {}
        self.children: list[str] = []
        self.unsupported = ""

    def path_of(self, obj):
        return self.paths.get(id(obj))

    def read(self, obj, name: str, value) -> None:
        base = self.paths.get(id(obj))
        if base is None:
            return
        path = f"{base}.{name}" if base else name
        if _is_tensor(value):
            self.unsupported = f"node.{path} is a tensor (structure must be plain Python)"
        elif isinstance(value, _STRUCTURAL):
            self.tests.setdefault(path, value)
        elif isinstance(value, _DATA):
            self.inputs.setdefault(path, type(value))
        elif not callable(value):
            self.tests.setdefault(path, ("type", type(value)))
            self.paths.setdefault(id(value), path)
            self.keep.append(value)

    def recurse(self, child) -> bool:
        path = self.paths.get(id(child))
        if path is None or path == "":
            return False
        self.children.append(path)
        return True

    def case(self, result) -> Case:
        import tensorflow as tf

        if self.unsupported:
            raise ValueError(self.unsupported)
        spec = tf.nest.map_structure(lambda t: (t.dtype.name, tuple(t.shape)), result)
        return Case(tuple(self.tests.items()), tuple(self.inputs.items()), tuple(self.children),
                    spec)
