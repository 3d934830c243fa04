"""A Plan: which facts a specialization treats as general instead of constant.

Plans only ever grow more general (the ladder): a tensor dimension becomes
dynamic, a list of varying length (of tensors or of Python numbers) becomes one stacked
tensor iterated by `tf.while_loop`, a list only appended to goes unassumed (or, when its
length is read, has its length fed), a tensor-valued branch becomes `tf.cond`.
"""
from __future__ import annotations

import dataclasses

from janus.graphgen import number_lists


@dataclasses.dataclass(frozen=True)
class Plan:
    dynamic_dims: tuple = ()          # ((source expr, (dim, ...)), ...)
    dynamic_lists: frozenset = frozenset()   # source exprs fed as stacked tensors
    itemwise_lists: frozenset = frozenset()  # lists of numbers whose stacked feed failed:
    #                                          read item by item (graphgen/number_lists.py)
    general_branches: frozenset = frozenset()  # (function, site id) built as tf.cond
    append_only: frozenset = frozenset()  # heap lists only appended to: length not guarded
    #                                       (source exprs or roles)
    fed_lengths: frozenset = frozenset()  # heap lists appended to whose length alone is
    #                                       read: the length fed as a scalar (roles)
    write_only: frozenset = frozenset()   # heap dicts only written, with keys the graph
    #                                       computes (graphgen/keyed_writes.py)
    read_dicts: frozenset = frozenset()   # heap dicts that were read after such a write:
    #                                       copied (their keys' numbers stay guarded)
    scalars: frozenset = frozenset()      # Python numbers fed as scalar tensors: source
    #                                       exprs or roles (`args[1][*].label`, Source.role)
    kept: frozenset = frozenset()         # roles whose values stay guarded (feeding them
    #                                       failed: used as an index or count, say)
    precise_floats: bool = False          # float arithmetic checked op by op (a value left
    #                                       the range graphgen/exact_numbers checks at once)

    def tensor_shape(self, expr: str, shape: tuple) -> tuple:
        dims = dict(self.dynamic_dims).get(expr, ())
        return tuple(None if i in dims else d for i, d in enumerate(shape))

    def is_dynamic_list(self, expr: str) -> bool:
        return expr in self.dynamic_lists

    def with_dynamic_dims(self, expr: str, dims) -> "Plan":
        table = dict(self.dynamic_dims)
        table[expr] = tuple(sorted(set(table.get(expr, ())) | set(dims)))
        return dataclasses.replace(self, dynamic_dims=tuple(sorted(table.items())))

    def with_dynamic_list(self, expr: str) -> "Plan":
        return dataclasses.replace(self, dynamic_lists=self.dynamic_lists | {expr})

    def with_itemwise(self, exprs) -> "Plan":
        return dataclasses.replace(self, itemwise_lists=self.itemwise_lists | set(exprs))

    def with_scalar(self, expr: str) -> "Plan":
        return dataclasses.replace(self, scalars=self.scalars | {expr})

    def is_scalar(self, source) -> bool:
        """Whether the Python number at `source` is fed (by its expr or its role)."""
        return source.expr in self.scalars or source.role in self.scalars

    def with_kept(self, roles) -> "Plan":
        return dataclasses.replace(self, scalars=self.scalars - set(roles),
                                   fed_lengths=self.fed_lengths - set(roles),
                                   kept=self.kept | set(roles))

    def is_fed_length(self, source) -> bool:
        """Whether the heap list at `source` is taken as only appended to with its length
        fed (`len(s.history)` read, its items never): one graph as the list grows."""
        return source.role in self.fed_lengths or source.expr in self.fed_lengths

    def with_fed_length(self, role: str) -> "Plan":
        return dataclasses.replace(self, fed_lengths=self.fed_lengths | {role})

    def is_append_only(self, source) -> bool:
        """Whether the heap list at `source` is taken as only appended to (its expr or its
        role: the lists under every key of a dict)."""
        return source.expr in self.append_only or source.role in self.append_only

    def with_append_only(self, expr: str) -> "Plan":
        return dataclasses.replace(self, append_only=self.append_only | {expr})

    def with_write_only(self, expr: str) -> "Plan":
        return dataclasses.replace(self, write_only=self.write_only | {expr})

    def with_read_dict(self, expr: str) -> "Plan":
        return dataclasses.replace(self, write_only=self.write_only - {expr},
                                   read_dicts=self.read_dicts | {expr})

    def with_general_branch(self, key: tuple) -> "Plan":
        return dataclasses.replace(self, general_branches=self.general_branches | {key})

    def describe(self) -> list[str]:
        lines = [f"dynamic dims of {e}: {list(d)}" for e, d in self.dynamic_dims]
        lines += [f"list {e} of varying length: tf.while_loop" for e in sorted(self.dynamic_lists)]
        lines += [f"list {e} of numbers is read item by item (fed whole, its trace failed)"
                  for e in sorted(self.itemwise_lists)]
        lines += [f"branch {f}#{s}: tf.cond / tf.while_loop" for f, s in sorted(self.general_branches)]
        lines += [f"list {e} is only appended to: its length is not assumed"
                  for e in sorted(self.append_only)]
        lines += [f"list {e} is only appended to: its length is fed as a scalar tensor"
                  for e in sorted(self.fed_lengths)]
        lines += [f"dict {e} is only written, with keys the graph computes"
                  for e in sorted(self.write_only)]
        lines += [f"number {e} is fed as a scalar tensor" for e in sorted(self.scalars)]
        lines += [f"number {e} stays guarded (feeding it failed)" for e in sorted(self.kept)]
        if self.precise_floats:
            lines.append("float arithmetic checked op by op (a value left the fast "
                         "check's range)")
        return lines or ["fully specialized"]


def plan_from_profile(profile, seed: Plan = Plan()) -> Plan:
    """Generalize what already varied while profiling: tensor dims of the arguments,
    list lengths, tensor-valued branches that went both ways (starting from `seed`: a list
    known to be only appended to stays so, not fed as a stacked tensor), and a loop's
    exit on a tensor (how many times a loop runs before its data says stop is seldom
    the same from call to call: graphgen/exits.py)."""
    plan = seed
    signatures = profile.signatures
    if len(signatures) >= 2:
        first = signatures[0]
        for other in signatures[1:]:
            plan = _compare(plan, first, other, "")
    for (function, site_id), record in profile.sites.items():
        if record.tensor_tests and (len(record.sequences) > 1 or record.loop_exit):
            plan = plan.with_general_branch((function, site_id))
    return plan


def _compare(plan: Plan, a, b, expr: str) -> Plan:
    """Walk two described call signatures side by side; generalize where they differ."""
    if expr == "":  # (args, kwargs)
        (args_a, _), (args_b, _) = a[2], b[2]
        for i, (x, y) in enumerate(zip(args_a[2], args_b[2])):
            plan = _compare(plan, x, y, f"args[{i}]")
        return plan
    if a[0] == "tensor" and b[0] == "tensor" and a[1] == b[1] and len(a[2]) == len(b[2]):
        dims = [i for i, (p, q) in enumerate(zip(a[2], b[2])) if p != q]
        return plan.with_dynamic_dims(expr, dims) if dims else plan
    if a[0] == "list" and b[0] == "list":
        if expr in plan.append_only:
            return plan
        if a[1] != b[1] and a[2] and b[2] and all(x[0] == "tensor" for x in a[2] + b[2]):
            specs = {(x[1], len(x[2])) for x in a[2] + b[2]}
            if len(specs) == 1:
                plan = plan.with_dynamic_list(expr)
                shapes = [x[2] for x in a[2] + b[2]]
                dims = [i for i in range(len(shapes[0])) if len({s[i] for s in shapes}) > 1]
                return plan.with_dynamic_dims(expr + "[*]", dims) if dims else plan
        if a[1] != b[1] and a[2] and b[2] and \
                number_lists.layout_of_description(a[2] + b[2]) is not None:
            return plan.with_dynamic_list(expr)  # (Python numbers: graphgen/number_lists.py)
        if a[1] == b[1]:
            for i, (x, y) in enumerate(zip(a[2], b[2])):
                plan = _compare(plan, x, y, f"{expr}[{i}]")
    return plan
