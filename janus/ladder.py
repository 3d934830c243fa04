"""The generalization ladder: the more general plan that follows a host guard which keeps
failing (append-only lists, lists a graph never touches, Python numbers fed as tensors,
dynamic dimensions, lists of varying length). A number is generalized by role: `args[1][3].label` failing feeds
`args[1][*].label`, the label of every item."""
from __future__ import annotations

import numpy as np

from janus.graphgen import number_lists
from janus.graphgen.plan import Plan
from janus.tensors import is_tensor


def is_fed_number(value) -> bool:
    """A Python int or float, or a numpy number janus may feed to a graph (not a bool;
    an np.float64 too, fed as a float64 HostScalar: F359)."""
    return type(value) in (int, float) or isinstance(value, (np.integer, np.floating))


def next_plan(plan: Plan, guard, value, spec, refused=frozenset()):
    """The next rung of the ladder for a host guard that keeps failing, or None (`refused`:
    lists whose untouched rung's graph failed, which take the rungs after it: F367)."""
    expr = guard.source.expr
    if guard.kind == "len" and expr in spec.appended_only:
        # (and every list of its role: `s.losses[n].append(x)`, one list per key of a dict)
        return plan.with_append_only(guard.source.role)
    if guard.kind == "len" and expr in getattr(spec, "untouched", ()) and \
            isinstance(value, list) and guard.source.role not in plan.kept and \
            expr not in refused:
        # a list this graph never reads nor changes (copied with the dict holding it) that
        # grew: another outcome of a branch appends to it (`if s.step % k == 0:
        # s.hist["g"].append(gl)`), so it is taken as only appended to, its length fed
        # (that outcome may read it), not as a stacked tensor, which that outcome's graph
        # could not append to (F356)
        # (a read the tracer does not see makes a read list look untouched: should the
        # plan's generation fail, the plan the other rungs make follows: `untouched_fed`)
        return plan.with_fed_length(expr)
    if guard.kind == "len" and expr in getattr(spec, "length_only", ()) and \
            guard.source.role not in plan.kept:
        # its length alone read (`len(s.history)`): fed, as the list grows
        return plan.with_fed_length(guard.source.role)
    if guard.kind == "value" and is_fed_number(guard.expected) and \
            type(value) is type(guard.expected):
        # every value of the same role (this field of every item of the container) at once
        role = guard.source.role
        return None if role in plan.kept else plan.with_scalar(role)
    if guard.kind == "tensor" and is_tensor(value) and hasattr(value, "shape"):
        dtype, shape = guard.expected
        if value.dtype.name == dtype and len(value.shape) == len(shape):
            dims = [i for i, (a, b) in enumerate(zip(shape, value.shape)) if a != b]
            return plan.with_dynamic_dims(expr, dims)
    if guard.kind == "array" and type(value) is np.ndarray:  # (fed to a segment)
        dtype, shape = guard.expected
        if value.dtype.name == dtype and value.ndim == len(shape):
            dims = [i for i, (a, b) in enumerate(zip(shape, value.shape)) if a != b]
            return plan.with_dynamic_dims(expr, dims)
    if guard.kind == "tensor_list" and isinstance(value, list) and value and is_tensor(value[0]):
        dtype, shape = guard.expected
        dims = [i for i, (a, b) in enumerate(zip(shape, value[0].shape)) if a != b]
        return plan.with_dynamic_dims(expr + "[*]", dims)
    if guard.kind == "len" and isinstance(value, list) and value and \
            (all(is_tensor(v) for v in value) or number_lists.layout_of(value) is not None
             and not _changed_by(spec, expr)):
        return plan.with_dynamic_list(expr)
    return None


def untouched_fed(before: Plan, after: Plan, spec) -> frozenset:
    """The lists whose lengths the untouched rung fed going from `before` to `after` (it
    feeds a list by its source expr, one `spec`'s trace never read; the length-only rung
    feeds a role, read by `len()`). A failed generation of `after` is not counted: those
    lists are refused that rung and the plan made without it follows (F367)."""
    return frozenset(after.fed_lengths - before.fed_lengths) & \
        frozenset(getattr(spec, "untouched", ()))


def _changed_by(spec, expr: str) -> bool:
    """Whether the graph of `spec` changes the heap list at `expr` (`s.steps.append(len(
    s.steps))`): one fed as a tensor cannot be changed, a copy can."""
    return any(e.kind in ("contents", "extend") and e.source is not None and
               e.source.expr == expr for e in getattr(spec, "effects", ()))
