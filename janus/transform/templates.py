"""Build gast nodes from small source templates with names substituted."""
from __future__ import annotations

import textwrap

import gast

from janus import source

RUNTIME = "janus__"
"""The name under which converted code sees its runtime."""


class _Substitute(gast.NodeTransformer):
    def __init__(self, replacements: dict):
        self.replacements = replacements

    def visit_Name(self, node):
        new = self.replacements.get(node.id)
        if new is None:
            return node
        if isinstance(new, str):
            return gast.Name(id=new, ctx=node.ctx, annotation=None, type_comment=None)
        new = _clone(new)
        if hasattr(new, "ctx"):
            _set_ctx(new, node.ctx)
        return new

    def visit_Expr(self, node):
        # A bare name statement standing for a list of statements.
        if isinstance(node.value, gast.Name):
            new = self.replacements.get(node.value.id)
            if isinstance(new, list):
                return [_clone(s) for s in new]
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node):
        new = self.replacements.get(node.name)
        if isinstance(new, str):
            node.name = new
        self.generic_visit(node)
        return node


def _clone(node):
    if isinstance(node, list):
        return [_clone(n) for n in node]
    return gast.ast_to_gast(gast.gast_to_ast(node)) if isinstance(node, gast.AST) else node


def _set_ctx(node, ctx):
    for child in gast.walk(node):
        if hasattr(child, "ctx") and isinstance(child, (gast.Name, gast.Tuple, gast.List,
                                                        gast.Attribute, gast.Subscript,
                                                        gast.Starred)):
            child.ctx = type(ctx)()


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def statements(template: str, **replacements) -> list:
    """Parse `template` into gast statements, replacing names by nodes or names.

    The template's own nodes have no location (`copy_location` gives them one); the
    nodes substituted into it keep theirs (the user's lines)."""
    tree = gast.ast_to_gast(source.parse(textwrap.dedent(template)))
    for node in gast.walk(tree):
        for attr in _LOCATION:
            if attr in node._attributes:
                setattr(node, attr, None)
    tree = _Substitute(replacements).visit(tree)
    return tree.body


def expression(template: str, **replacements):
    """Parse `template` into a gast expression, replacing names by nodes or names."""
    return statements(template, **replacements)[0].value


def name(id_: str, store: bool = False) -> gast.Name:
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(),
                     annotation=None, type_comment=None)


def constant(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def copy_location(new, old):
    """Give the nodes in `new` (a node or list) that janus made the location of `old`
    (the roots) or of their nearest located ancestor; nodes that have one (the user's
    code substituted into a template) keep it, so a nested def or a statement in a loop
    body keeps its own lines (its code object's first line is how its source is found)."""
    start = (getattr(old, "lineno", None) or 1, getattr(old, "col_offset", None) or 0)
    end = (getattr(old, "end_lineno", None) or start[0],
           getattr(old, "end_col_offset", None) or 0)
    if end < start:
        end = start
    for root in new if isinstance(new, list) else [new]:
        _fill(root, start, end)
    return new


def _fill(node, start, end):
    if "lineno" in node._attributes:
        if getattr(node, "lineno", None) is None:
            node.lineno, node.col_offset = start
            node.end_lineno, node.end_col_offset = end
        elif getattr(node, "end_lineno", None) is None:
            node.end_lineno, node.end_col_offset = node.lineno, node.col_offset
        start = (node.lineno, node.col_offset)
        end = (node.end_lineno, node.end_col_offset)
    for child in gast.iter_child_nodes(node):
        _fill(child, start, start)
