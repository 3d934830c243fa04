"""Program sites: the places in a function the profiler records and guards refer to."""
from __future__ import annotations

import ast
import dataclasses

import gast


@dataclasses.dataclass(frozen=True)
class Site:
    """One program point: a branch test, a loop, a call.

    `function` is the qualified name of the user function it is in; `lineno` is a
    line of the user's file; `text` the source of the expression.
    """

    id: int
    kind: str
    function: str
    filename: str
    lineno: int
    text: str
    parts: tuple = ()  # an exit test's operands' sites (transform/exit_tests.py)
    raises_when: bool | None = None  # the test's outcome after which its block raises

    def describe(self) -> str:
        return f"{self.kind} `{self.text}` at {self.filename}:{self.lineno}"

    def location(self) -> dict:
        """Where it is, as a ConversionError's keywords."""
        return {"function": self.function, "filename": self.filename, "lineno": self.lineno}


class SiteTable:
    """Hands out site ids for one function and keeps the records."""

    def __init__(self, function: str, filename: str):
        self.function = function
        self.filename = filename
        self.sites: list[Site] = []

    def new(self, kind: str, node: gast.AST, parts: tuple = (),
            raises_when: bool | None = None) -> int:
        text = ast.unparse(gast.gast_to_ast(node)).strip() if node is not None else ""
        if len(text) > 80:
            text = text[:77] + "..."
        site = Site(len(self.sites), kind, self.function, self.filename,
                    getattr(node, "lineno", 0), text, parts, raises_when)
        self.sites.append(site)
        return site.id

    def __getitem__(self, site_id: int) -> Site:
        return self.sites[site_id]
