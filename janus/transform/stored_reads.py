"""Reads of a tensor's value whose value is only stored: no graph break.

`float(loss)`, `loss.numpy()` (`int()`, `bool()`) not bound to a name, where the value
only goes to the heap, the caller or the printed text:

    s.history.append(float(loss))              appended
    return {"loss": float(loss), "acc": acc}   returned (in a literal)
    s.best = loss.numpy()                      stored in an attribute or item
    print(f"step {n}: {loss.numpy():.4f}")     formatted, printed

A graph keeps such a scalar's read as a tensor (graphgen/host_scalars.py, a fed Python
number for the conversions) and the write-back hands out the numpy scalar or Python
number Python would have; text formatted from it is filled in after the run
(graphgen/formatted_text.py). transform/breaks.in_graph_reads asks this module for
reads where they stand and for a named read's uses (`l = float(loss)`, `{"loss": l}`).
"""
from __future__ import annotations

import gast


def where_it_stands(node, parents: dict) -> bool:
    """Whether a read not bound to a name only has its value stored, returned, printed or
    formatted (or is an item of a list, tuple or dict literal that is): returned or
    stored, the graph hands out the numpy scalar or Python number after the run; text
    formatted from it is filled in by the write-back (graphgen/formatted_text.py)."""
    parent = parents.get(id(node))
    if isinstance(parent, gast.FormattedValue):
        return parent.value is node
    if isinstance(parent, (gast.List, gast.Tuple, gast.Dict)):
        items = parent.values if isinstance(parent, gast.Dict) else parent.elts
        return any(item is node for item in items) and \
            where_it_stands(parent, parents)
    if isinstance(parent, gast.Assign):  # (`x = float(t)`: x's uses decide: breaks.py)
        return parent.value is node and \
            all(isinstance(t, (gast.Attribute, gast.Subscript)) for t in parent.targets)
    if isinstance(parent, gast.Call) and any(a is node for a in parent.args) and \
            isinstance(parent.func, gast.Name) and parent.func.id == "print":
        return not any(isinstance(a, gast.Starred) for a in parent.args)
    return isinstance(parent, gast.Return) or \
        isinstance(parent, gast.Call) and parent.args == [node] and not parent.keywords and \
        isinstance(parent.func, gast.Attribute) and parent.func.attr == "append"
