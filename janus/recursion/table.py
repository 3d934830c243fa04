"""The host side of a SubGraph call: Python structures -> a node table.

Every node reachable from the roots is classified into a Case, numbered in
post-order, and given a level (leaves 0, a parent one above its highest child).
The graph then runs level by level, each case batched over the level's nodes.
"""
from __future__ import annotations

import sys

import numpy as np

from janus.graphgen.sources import is_name
from janus.recursion.cases import Case


class NoCase(Exception):
    """A node matches none of the cases the SubGraph was built for (a guard failure)."""

    def __init__(self, node, cases):
        self.node = node
        super().__init__(f"a {type(node).__name__} node matches none of the {len(cases)} "
                         "structures seen while profiling")


def _path(path) -> str:
    """`n.<path>` for a dotted attribute path, each part an identifier (checked: the path
    is rendered into the visitor's code, and cases may come from a cache record)."""
    if type(path) is not str or not all(is_name(part) for part in path.split(".")):
        raise ValueError(f"not an attribute path: {path!r:.200}")
    return "n." + path


def _case_tests(c: int, case: Case, env: dict, singletons: bool = False) -> list[str]:
    """The Python tests that node `n` is of case `c`: its tested attributes' types or
    values and its inputs' types (expected values go into `env`; `singletons`: None and
    bools are tested with one `is`)."""
    tests = []
    for k, (path, expected) in enumerate(case.tests):
        read = _path(path)
        if isinstance(expected, tuple) and expected[:1] == ("type",):
            env[f"T{c}_{k}"] = expected[1]
            tests.append(f"type({read}) is T{c}_{k}")
        elif singletons and (expected is None or type(expected) is bool):
            env[f"V{c}_{k}"] = expected
            tests.append(f"{read} is V{c}_{k}")
        else:
            env[f"V{c}_{k}"] = expected
            tests.append(f"type({read}) is type(V{c}_{k}) and {read} == V{c}_{k}")
    for k, (path, kind) in enumerate(case.inputs):
        env[f"I{c}_{k}"] = kind
        tests.append(f"type({_path(path)}) is I{c}_{k}")
    return tests


def compile_visitor(cases: list[Case]):
    """`visit(node) -> (case index, children, inputs)`, the case tests compiled into one
    Python function (this runs for every node of every call). Only checked attribute
    paths and small ints become code; expected values and types are in its environment."""
    lines = ["def visit(n):"]
    env = {"NoCase": NoCase, "CASES": cases}
    for c, case in enumerate(cases):
        tests = _case_tests(c, case, env)
        children = "".join(f"{_path(p)}, " for p in case.children)
        inputs = "".join(f"{_path(p)}, " for p, _ in case.inputs)
        lines.append("    try:")
        lines.append(f"        if {' and '.join(tests) or 'True'}:")
        lines.append(f"            return {c}, ({children}), ({inputs})")
        lines.append("    except AttributeError:")
        lines.append("        pass")
    lines.append("    raise NoCase(n, CASES)")
    exec(compile("\n".join(lines), "<janus node visitor>", "exec"), env)
    return env["visit"]


def compile_builder(cases: list[Case]):
    """`build(roots) -> table`: `build_table` for these cases, with the case tests, the
    reads of children and per-node inputs and the bookkeeping of each case compiled into
    one walker (this runs for every node of every call: no per-node tuples, visitor call
    or generic lists). Only checked attribute paths and small ints become code."""
    env = {"NoCase": NoCase, "CASES": cases, "finish": _finish, "sys": sys}
    walk = ["    def walk(n):", "        i = ids.get(id(n))", "        if i is not None:",
            "            return i", "        c = -1"]
    state = ["    ids = {}", "    level = []", "    ncase = []", "    keep = []"]
    for c, case in enumerate(cases):
        tests = _case_tests(c, case, env, singletons=True)
        reads = [f"x{k} = {_path(p)}" for k, p in enumerate(case.children)] + \
            [f"y{k} = {_path(p)}" for k, (p, _) in enumerate(case.inputs)]
        state.append(f"    M{c} = []")
        state += [f"    K{c}_{k} = []" for k in range(len(case.children))]
        state += [f"    D{c}_{k} = []" for k in range(len(case.inputs))]
        walk += ["        if c < 0:", "            try:",
                 f"                if {' and '.join(tests) or 'True'}:"]
        walk += [f"                    {r}" for r in reads]
        walk += [f"                    c = {c}", "            except AttributeError:",
                 "                pass"]
    for c, case in enumerate(cases):
        walk.append(f"        if c == {c}:")
        body = [f"z{k} = walk(x{k})" for k in range(len(case.children))]
        if case.children:
            body.append("l = level[z0]")
            for k in range(1, len(case.children)):
                body += [f"if level[z{k}] > l:", f"    l = level[z{k}]"]
            body.append("l += 1")
        else:
            body.append("l = 0")
        body += ["i = ids[id(n)] = len(level)", "level.append(l)", f"ncase.append({c})",
                 "keep.append(n)", f"M{c}.append(i)"]
        body += [f"K{c}_{k}.append(z{k})" for k in range(len(case.children))]
        body += [f"D{c}_{k}.append(y{k})" for k in range(len(case.inputs))]
        body.append("return i")
        walk += [f"            {line}" for line in body]
    walk.append("        raise NoCase(n, CASES)")
    per_case = ", ".join(
        f"(M{c}, [{''.join(f'K{c}_{k}, ' for k in range(len(case.children)))}], "
        f"[{''.join(f'D{c}_{k}, ' for k in range(len(case.inputs)))}])"
        for c, case in enumerate(cases))
    lines = ["def build(roots):"] + state + walk + [
        "    limit = sys.getrecursionlimit()",
        "    try:",
        "        sys.setrecursionlimit(max(limit, 20000))",
        "        top = [walk(r) for r in roots]",
        "    finally:",
        "        sys.setrecursionlimit(limit)",
        "        del walk",  # (it refers to itself: a cycle keeping the nodes, F440)
        f"    return finish(CASES, top, level, ncase, [{per_case}])"]
    exec(compile("\n".join(lines), "<janus node table builder>", "exec"), env)
    return env["build"]


def _ints(values: list, dtype=np.int64) -> np.ndarray:
    return np.fromiter(values, dtype, len(values))


def _finish(cases, top, level, ncase, per_case) -> dict[str, np.ndarray]:
    """The table's arrays from the walk: rows ordered by (level, case, post-order)."""
    levels = 1 + max(level, default=-1)
    node_level = _ints(level, np.int32)
    order = np.lexsort((_ints(ncase, np.int32), node_level))
    row = np.empty(len(order), np.int32)
    row[order] = np.arange(len(order), dtype=np.int32)
    table = {"num_levels": np.int32(levels), "roots": row[_ints(top)]}
    for c, (case, (members, kids, data)) in enumerate(zip(cases, per_case)):
        members = _ints(members)
        member_levels = node_level[members]
        perm = np.argsort(member_levels, kind="stable")  # by level, post-order within
        if case.children:
            table[f"splits_{c}"] = np.searchsorted(member_levels[perm], np.arange(levels + 1),
                                                   side="left").astype(np.int32)
        children = np.empty((len(members), len(case.children)), np.int32)
        for k, column in enumerate(kids):
            children[:, k] = row[_ints(column)[perm]]
        table[f"children_{c}"] = children
        for k, (_, kind) in enumerate(case.inputs):
            table[f"input_{c}_{k}"] = np.fromiter(data[k], np.int32 if kind is int else
                                                  np.float32, len(data[k]))[perm]
    return table


def build_table(roots: list, cases: list[Case], visit=None) -> dict[str, np.ndarray]:
    """The node table for `roots` (names match `table_layout`).

    Cases without children (leaves) are all on level 0 and run once, batched; the
    other cases run level by level, `splits_c` giving each level's slice of them.
    (`visit`, a compiled visitor, is the reference walk: tests compare the two.)"""
    if visit is None:
        return compile_builder(cases)(roots)
    return _build_with_visitor(roots, cases, visit)


def _build_with_visitor(roots: list, cases: list[Case], visit) -> dict[str, np.ndarray]:
    ids: dict[int, int] = {}
    node_case, node_level, node_children, node_inputs, keep = [], [], [], [], []

    def walk(node) -> int:
        index = ids.get(id(node))
        if index is not None:
            return index
        case, children, inputs = visit(node)
        child_ids = [walk(child) for child in children]
        index = ids[id(node)] = len(node_case)
        keep.append(node)
        node_case.append(case)
        node_children.append(child_ids)
        node_level.append(1 + max([node_level[c] for c in child_ids]) if child_ids else 0)
        node_inputs.append(inputs)
        return index

    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 20000))
        for root in roots:
            walk(root)
    finally:
        sys.setrecursionlimit(limit)
        del walk  # (it refers to itself: a cycle keeping the nodes, F440)
    levels = 1 + max(node_level, default=-1)
    node_case = np.array(node_case, np.int32)
    node_level = np.array(node_level, np.int32)
    # Renumber so rows are ordered by (level, case): each level's results are appended
    # to the buffer in that order, and every child's row precedes its parent's.
    order = np.lexsort((node_case, node_level)).astype(np.int32)
    row = np.empty_like(order)
    row[order] = np.arange(len(order), dtype=np.int32)
    table = {"num_levels": np.int32(levels),
             "roots": np.array([row[ids[id(r)]] for r in roots], np.int32)}
    for c, case in enumerate(cases):
        members = order[node_case[order] == c]
        if case.children:
            table[f"splits_{c}"] = np.searchsorted(node_level[members], np.arange(levels + 1),
                                                   side="left").astype(np.int32)
        children = np.array([node_children[m] for m in members], np.int32)
        table[f"children_{c}"] = row[children].reshape(len(members), len(case.children))
        inputs = [node_inputs[m] for m in members]
        for k, (path, kind) in enumerate(case.inputs):
            dtype = np.int32 if kind is int else np.float32
            table[f"input_{c}_{k}"] = np.array([values[k] for values in inputs], dtype)
    return table


def table_layout(cases: list[Case]) -> list[tuple[str, str, tuple]]:
    """(name, dtype, shape) of every table tensor, in feed order."""
    layout = [("num_levels", "int32", ()), ("roots", "int32", (None,))]
    for c, case in enumerate(cases):
        if case.children:
            layout.append((f"splits_{c}", "int32", (None,)))
        layout.append((f"children_{c}", "int32", (None, len(case.children))))
        layout += [(f"input_{c}_{k}", "int32" if kind is int else "float32", (None,))
                   for k, (_, kind) in enumerate(case.inputs)]
    return layout


