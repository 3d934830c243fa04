"""Tensor identity, which a graph does not keep where Python does.

Eagerly, a branch or a loop that passes a tensor through leaves the very object:

    y = acc if n % 2 else x       # n even: `y is x`
    for item in items: h = ...    # no iteration: `h is h0`

(a `tf.cond`/`tf.while_loop` the user calls eagerly just runs the Python function, so
the same holds). In a graph, every output of an If/While op is a new tensor, whatever
path the call takes. Where identity decides the result, the graph would be silently
wrong, so the trace refuses there and the generation retreats to the specialized plan,
whose branches keep Python's objects:

    y is x, id(y), y.ref()              Python: x's identity on that path
    tape.watch(y), tape.gradient(_, y)  Python: watches / differentiates x itself
    tape.gradient(f(y), x), the tf.cond built before the tape watched x
                                        Python: through y too (it *is* x); the graph:
                                        nothing flows back through the unrecorded If

What an output may be (`aliases`) is read from the op's own branch or body functions:
the inputs a branch hands back unchanged at that position, a loop's initial value.
`built` notes which inputs of an op janus (or the user's own tf.cond...) built were
watched by a tape then: a tape records such an op, so gradients through it are right.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.eager import record

from janus import user_attributes
from janus.errors import ConversionError
from janus.graphgen import heap_identity
from janus.graphgen.merge_paths import CONTROL_FLOW, branch_inputs, merge_output
from janus.graphgen.value_kinds import is_symbolic

TAPE_METHODS = frozenset({"watch", "gradient", "jacobian", "batch_jacobian"})
USER_MERGES = frozenset(id(f) for f in (tf.cond, tf.while_loop, tf.case, tf.switch_case,
                                        tf.compat.v1.cond, tf.compat.v1.while_loop,
                                        tf.compat.v1.case))


def _key(tensor) -> tuple:
    return id(tensor.graph), tensor.name


def aliases(tensor) -> list:
    """The inputs of the merge op behind `tensor` that it may be in Python: the inputs a
    branch (or a loop body) hands back unchanged at its position, a loop's initial
    value; every input where the op's functions cannot be read. [] for other tensors."""
    merge = merge_output(tensor) if is_symbolic(tensor) else None
    if merge is None:
        return []
    op, index = merge
    inputs = list(op.inputs)
    offset = 0 if op.type in ("While", "StatelessWhile") else 1
    passed = branch_inputs(op, index)
    if passed is None:  # (functions janus cannot read: every input)
        return inputs[offset:]
    found = [inputs[index]] if offset == 0 else []
    return found + [v for v in passed if v is not None]


def may_be(tensor) -> set:
    """Keys of the tensors `tensor` may be in Python (through merges, transitively)."""
    found: set = set()
    stack = [tensor]
    while stack:
        for value in aliases(stack.pop()):
            if _key(value) not in found:
                found.add(_key(value))
                stack.append(value)
    return found


def built(tracer, outputs) -> None:
    """Note the merge ops behind `outputs` (a nest) and which of their inputs a tape
    watched as they were built (what the tape recorded the op for)."""
    for value in tf.nest.flatten(outputs, expand_composites=True):
        merge = merge_output(value)
        if merge is not None and _key(merge[0].outputs[0]) not in tracer.merges:
            op = merge[0]
            watched = frozenset(_key(v) for v in op.inputs
                                if record.should_record_backprop([v]))
            for output in op.outputs:
                tracer.merges[_key(output)] = watched


def check_call(tracer, fn, args: tuple, kwargs: dict) -> None:
    """A call whose answer depends on a tensor's identity: `id(t)`, `t.ref()`, a tape's
    watch / gradient / jacobian; of a heap object: graphgen/heap_identity.py."""
    if fn is id and len(args) == 1:
        check_own_identity(args[0], "`id()`")
    heap_identity.check_call(tracer, fn, args, kwargs)
    if fn is id:
        return
    owner = user_attributes.get(fn, "__self__")
    if owner is None:
        return
    name = user_attributes.get(fn, "__name__", "")
    if isinstance(owner, tf.GradientTape) and name in TAPE_METHODS:
        check_tape(tracer, name, args, kwargs)
    elif name in ("ref", "experimental_ref") and is_symbolic(owner):
        check_own_identity(owner, f"`.{name}()`")


def check_is(left, right) -> None:
    """`left is right` where one may be the other in Python but not in the graph."""
    if left is right or not (is_symbolic(left) and is_symbolic(right)):
        return
    if _key(right) in may_be(left) or _key(left) in may_be(right) or \
            may_be(left) & may_be(right):
        raise ConversionError("`is` between tensors one of which a graph's tf.cond or "
                              "tf.while_loop made (Python may keep the very object)")


def check_own_identity(value, what: str) -> None:
    """`id(value)`, `value.ref()`, `tape.watch(value)`: refused for a merge's output."""
    if may_be(value):
        raise ConversionError(f"{what} of a tensor a graph's tf.cond or tf.while_loop "
                              "made (in Python it may be an earlier tensor)")


def check_tape(tracer, method: str, args: tuple, kwargs: dict) -> None:
    """A tape's watch/gradient/jacobian whose answer depends on tensor identity."""
    if method == "watch":
        for value in tf.nest.flatten(args[:1] + tuple(kwargs.values())):
            check_own_identity(value, "`tape.watch`")
        return
    target = args[0] if args else kwargs.get("target")
    sources = args[1] if len(args) > 1 else kwargs.get("sources")
    sources = [s for s in tf.nest.flatten(sources) if is_symbolic(s)]
    if not sources:
        return
    for source in sources:
        check_own_identity(source, f"`tape.{method}` with respect to a tensor")
    wanted = {_key(s) for s in sources}
    if any(_reaches_unrecorded(tracer, tensor, wanted)
           for tensor in _merges_behind(tf.nest.flatten(target))):
        raise ConversionError(
            f"`tape.{method}` through a graph's tf.cond or tf.while_loop built before "
            "the tape watched one of its inputs (in Python its result may be that "
            "very tensor, and the gradient flows through it)")


def _reaches_unrecorded(tracer, tensor, wanted: set) -> bool:
    """Whether merge output `tensor` may be, in Python, one of `wanted` through a merge
    no tape recorded for it (directly, or through an inner merge's output)."""
    watched = tracer.merges.get(_key(tensor), frozenset())
    for value in aliases(tensor):
        if _key(value) in wanted and _key(value) not in watched or \
                merge_output(value) is not None and \
                _reaches_unrecorded(tracer, value, wanted):
            return True
    return False


def _merges_behind(targets: list) -> list:
    """The outputs of merge ops that `targets` depend on (in this graph), each output
    once."""
    seen: set = set()
    found = []
    stack = [t for t in targets if is_symbolic(t)]
    while stack:
        tensor = stack.pop()
        if _key(tensor) in seen:
            continue
        seen.add(_key(tensor))
        if tensor.op.type in CONTROL_FLOW:
            found.append(tensor)
        stack.extend(tensor.op.inputs)
    return found
