"""f-strings and `%` become runtime hooks, so that a trace sees the text they make:

    f"step {n}"    ->  janus__.text(f"step {n}")
    fmt % args     ->  janus__.percent(fmt, args)

Python joins an f-string's parts (and `%` its arguments) into a new plain str whatever
the parts were. In a trace a part formatted from a fed number or a tensor is a marker
the write-back fills in (graphgen/formatted_text.py); through these hooks the joined
text stays a `FormattedText`, which refuses to be read (`==`, `in`, `len`, its methods).
Plain Python (and the profiler) gives the value itself: `text(v)` is `v`,
`percent(a, b)` is `a % b`. An f-string's format spec stays as it is (its own parts are
visited); a nested user `def` keeps its body (converted when called), as in effects.py.
"""
from __future__ import annotations

import gast

from janus.transform import templates
from janus.transform.control_flow import OwnBody
from janus.transform.templates import RUNTIME


class TextTransformer(OwnBody):

    def visit_JoinedStr(self, node):
        self.generic_visit(node)
        return templates.copy_location(
            templates.expression(f"{RUNTIME}.text(TEXT)", TEXT=node), node)

    def visit_FormattedValue(self, node):
        node.value = self.visit(node.value)
        if node.format_spec is not None:  # (a JoinedStr Python requires as it is)
            self.generic_visit(node.format_spec)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Mod):
            return node
        return templates.copy_location(
            templates.expression(f"{RUNTIME}.percent(LEFT, RIGHT)", LEFT=node.left,
                                 RIGHT=node.right), node)
