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


# Globals and closure cells of *other* functions (callees in other modules, say) are
# reached through these process-wide tables: `MOD['models.rnn']['tf']`, `CELL[k]`.
class _ModuleGlobals(dict):
    """module name -> its globals, importing the module when first asked for."""

    def __missing__(self, name: str) -> dict:
        import importlib
        namespace = importlib.import_module(name).__dict__
        self[name] = namespace
        return namespace


MODULES: dict[str, dict] = _ModuleGlobals()
CELLS: dict[int, object] = {}


def global_(name: str, module: str | None = None, namespace: dict | None = None) -> Source:
    """A global of the jitted function (`G[...]`) or of another module (`MOD[...][...]`)."""
    if module is None:
        return Source(f"G[{name!r}]")
    MODULES.setdefault(module, namespace)
    return Source(f"MOD[{module!r}][{name!r}]")


def closure(index: int, cell=None) -> Source:
    """A closure variable of the jitted function (`C[i]`) or of another function's cell."""
    if cell is None:
        return Source(f"C[{index}].cell_contents")
    CELLS.setdefault(id(cell), cell)
    return Source(f"CELL[{id(cell)}].cell_contents")


def environment(globals_: dict, cells: tuple) -> dict:
    """The names source expressions may use, besides `args` and `kwargs`."""
    return {"G": globals_, "C": cells, "MOD": MODULES, "CELL": CELLS}


def evaluate(source: Source, args: tuple, kwargs: dict, globals_: dict, cells: tuple):
    return eval(source.expr, {"args": args, "kwargs": kwargs, **environment(globals_, cells)})
