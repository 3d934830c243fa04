"""The host side of a SubGraph call: Python structures -> a node table.

Every node reachable from the roots is classified into a Case, numbered in
post-order, and given a level (leaves 0, a parent one above its highest child).
The graph then runs level by level, each case batched over the level's nodes.
"""
from __future__ import annotations

import numpy as np

from janus.recursion.cases import Case, read_path


class NoCase(Exception):
    """A node matches none of the cases the SubGraph was built for (a guard failure)."""

    def __init__(self, node, cases):
        self.node = node
        super().__init__(f"a {type(node).__name__} node matches none of the {len(cases)} "
                         "structures seen while profiling")


def build_table(roots: list, cases: list[Case]) -> dict[str, np.ndarray]:
    """The node table for `roots` (names match `table_layout`)."""
    ids: dict[int, int] = {}
    node_case, node_level, node_children, node_inputs = [], [], [], []
    keep, seen = [], {}
    for root in roots:
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in ids:
                continue
            if id(node) not in seen:
                case_index = _classify(node, cases)
                seen[id(node)] = (case_index, [read_path(node, p) for p in cases[case_index].children])
            case_index, children = seen[id(node)]
            case = cases[case_index]
            if not expanded:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(children) if id(c) not in ids)
                continue
            ids[id(node)] = len(node_case)
            keep.append(node)
            child_ids = [ids[id(c)] for c in children]
            node_case.append(case_index)
            node_children.append(child_ids)
            node_level.append(1 + max((node_level[c] for c in child_ids), default=-1))
            node_inputs.append([read_path(node, p) for p, _ in case.inputs])
    levels = 1 + max(node_level, default=-1)
    table = {"num_nodes": np.int32(len(node_case)), "num_levels": np.int32(levels),
             "roots": np.array([ids[id(r)] for r in roots], np.int32)}
    node_case = np.array(node_case, np.int32)
    node_level = np.array(node_level, np.int32)
    for c, case in enumerate(cases):
        members = np.nonzero(node_case == c)[0]
        members = members[np.argsort(node_level[members], kind="stable")].astype(np.int32)
        table[f"ids_{c}"] = members
        table[f"splits_{c}"] = np.searchsorted(node_level[members], np.arange(levels + 1),
                                               side="left").astype(np.int32)
        table[f"children_{c}"] = np.array([node_children[m] for m in members], np.int32) \
            .reshape(len(members), len(case.children))
        for k, (path, kind) in enumerate(case.inputs):
            dtype = np.int32 if kind is int else np.float32
            table[f"input_{c}_{k}"] = np.array([node_inputs[m][k] for m in members], dtype)
    return table


def table_layout(cases: list[Case]) -> list[tuple[str, str, tuple]]:
    """(name, dtype, shape) of every table tensor, in feed order."""
    layout = [("num_nodes", "int32", ()), ("num_levels", "int32", ()), ("roots", "int32", (None,))]
    for c, case in enumerate(cases):
        layout += [(f"ids_{c}", "int32", (None,)), (f"splits_{c}", "int32", (None,)),
                   (f"children_{c}", "int32", (None, len(case.children)))]
        layout += [(f"input_{c}_{k}", "int32" if kind is int else "float32", (None,))
                   for k, (_, kind) in enumerate(case.inputs)]
    return layout


def _classify(node, cases: list[Case]) -> int:
    for index, case in enumerate(cases):
        if case.matches(node):
            return index
    raise NoCase(node, cases)
