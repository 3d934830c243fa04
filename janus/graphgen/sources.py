"""Where a value came from, relative to a call: `args[0].state`, `G['W']`, ...

A source is both how a guard reads the value on the next call and where a
deferred write goes back to. Sources are immutable and compare by their text.
"""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Source:
    expr: str  # a Python expression over `args`, `kwargs`, `G` (globals), `C` (closure cells)

    def attr(self, name: str) -> "Source":
        return Source(f"{self.expr}.{name}")

    def item(self, key) -> "Source":
        return Source(f"{self.expr}[{key!r}]")

    def __str__(self) -> str:
        return self.expr


def arg(index: int) -> Source:
    return Source(f"args[{index}]")


def kwarg(name: str) -> Source:
    return Source(f"kwargs[{name!r}]")


def global_(name: str) -> Source:
    return Source(f"G[{name!r}]")


def closure(index: int) -> Source:
    return Source(f"C[{index}].cell_contents")


def evaluate(source: Source, args: tuple, kwargs: dict, globals_: dict, cells: tuple):
    return eval(source.expr, {"args": args, "kwargs": kwargs, "G": globals_, "C": cells})
