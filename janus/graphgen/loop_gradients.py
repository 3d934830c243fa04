"""A loop's per-iteration gradient, batched after the loop.

A tape that records janus's `tf.while_loop` differentiates it with TF's while gradient:
a second loop, run backwards, that pops each iteration's intermediates (an actor-critic
episode: ~160 ops and ~17 accumulated values per step). Where the item a list gains per
iteration depends on the tape's sources only through that iteration's own values,

    for t in range(n):                       # a tape watches the weights
        probs = softmax(policy(obs))         # obs: the numpy environment's (no gradient)
        a = rng.choice(2, p=probs.numpy()[0])
        log_probs.append(log(probs[0, a]))   # f(weights; obs_t, a_t)

the loop keeps each iteration's *frontier* (the values without a gradient the item's
computation reads: obs_t, a_t) in one more list each, and the list reaches the tape as
one recorded op whose gradient recomputes f for all iterations at once (`pfor`) and
differentiates that — the batched backward pass a hand-written graph has:

    TF:     While(...) -> list          gradient: While(reverse, per iteration)
    janus:  While(..., frontier lists) -> list, recorded as JanusBatchedLoopItems
            gradient: pfor(f)(weights, frontier) and its gradient, once

The items are the loop's own values (exact); the gradient adds the same terms in
another order (a rounding, like any graph's). Refused, leaving TF's gradient: an item
that depends on a value the loop carries from iteration to iteration (an RNN's state), a
stateful op or a nested function in the item's computation, a tape used inside the loop
(`watch`, `stop_recording`...), a variable the loop writes, higher-order tapes.
"""
from __future__ import annotations

import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.framework import ops
from tensorflow.python.ops import control_flow_util_v2, gen_resource_variable_ops, \
    gradients_util, list_ops
from tensorflow.python.ops.parallel_for.control_flow_ops import pfor

from janus.graphgen.connectivity import differentiable as _differentiable

_NO_GRADIENT = frozenset({"StopGradient", "PreventGradient"})
# integer ops a recompute may run batched instead of keeping their values per iteration
_INTEGER_OPS = frozenset({"Pack", "AddV2", "Add", "Sub", "Mul", "Neg", "Identity", "Cast",
                          "ExpandDims", "Reshape", "ConcatV2", "StridedSlice"})
_WRITES = ("Assign", "ResourceApply", "ResourceSparseApply", "ResourceScatter",
           "ResourceStridedSliceAssign", "TensorArrayWrite")


def first_order(tensors: list) -> bool:
    """Whether a tape records ops on `tensors`, and only first-order gradients (one
    tape, no forward-mode accumulator)."""
    return gradients_util.PossibleTapeGradientTypes(tensors) == \
        gradients_util.POSSIBLE_GRADIENT_TYPES_FIRST_ORDER


def _has_gradient(op) -> bool:
    if op.type in _NO_GRADIENT:
        return False
    try:
        return ops.get_gradient_function(op) is not None
    except LookupError:
        return False


def _key(tensor) -> tuple:
    return id(tensor.graph), tensor.name


def _copyable(op) -> bool:
    """An op the recompute may run again, batched: stateless, no function of its own
    (a branch, a loop), no custom gradient (`tf.custom_gradient`: its override is not
    copied)."""
    attrs = op.node_def.attr
    return not op._is_stateful and "_gradient_op_type" not in attrs and not any(
        a.HasField("func") or a.HasField("list") and a.list.func for a in attrs.values())


class _Body:
    """The loop body's dataflow: which tensors depend differentiably on a loop invariant
    (`sources`: a variable or a captured float) or on a value the loop carries."""

    def __init__(self, while_op):
        self.op = while_op
        self.graph = while_op._body_graph
        self.inputs = {_key(t): j for j, t in enumerate(self.graph.inputs)}
        invariant = set()
        for j, (into, out) in enumerate(zip(self.graph.inputs, self.graph.outputs)):
            while out.op.type == "Identity" and out.op.inputs:
                out = out.op.inputs[0]
            if out is into:
                invariant.add(j)
        self.invariant = invariant
        self.depends: dict[tuple, str] = {}  # tensor -> "source" | "carried"
        for j, tensor in enumerate(self.graph.inputs):
            if _differentiable(tensor.dtype):
                self.depends[_key(tensor)] = "source" if j in invariant else "carried"
        for op in self.graph.get_operations():
            marks = {self.depends.get(_key(t)) for t in op.inputs} - {None}
            if not marks or not _has_gradient(op):
                continue
            mark = "carried" if "carried" in marks else "source"
            for out in op.outputs:
                if _differentiable(out.dtype):
                    self.depends[_key(out)] = mark

    def outer(self, tensor):
        """The loop's input for a body placeholder."""
        return self.op.inputs[self.inputs[_key(tensor)]]

    def is_invariant_input(self, tensor) -> bool:
        j = self.inputs.get(_key(tensor))
        return j is not None and j in self.invariant


class _Items:
    """What recomputes one group of lists' items: the body ops on the way from the
    sources to the items, in program order, and what they read without a gradient."""

    def __init__(self, body: _Body, items: list):
        self.body = body
        self.items = items
        self.ops: list = []       # copied per iteration
        self.reads: dict = {}     # ReadVariableOp output -> (it, its resource placeholder)
        self.frontier: list = []  # body tensors kept per iteration
        self.invariants: list = []  # body placeholders passed as they are
        self.refusal = ""
        self.vjp = None  # (`_vjp_function`)
        seen, frontier, invariants = set(), {}, {}
        stack = list(items)
        while stack and not self.refusal:
            tensor = stack.pop()
            mark = body.depends.get(_key(tensor))
            op = tensor.op
            if mark == "carried":
                self.refusal = "an item depends on a value the loop carries"
            elif mark is None:
                if op.type == "Const":
                    if op not in seen:
                        seen.add(op)
                        self.ops.append(op)
                elif body.is_invariant_input(tensor):
                    invariants.setdefault(_key(tensor), tensor)
                elif not tensor.shape.is_fully_defined():
                    self.refusal = f"a value without a gradient of unknown shape ({tensor.name})"
                else:
                    frontier.setdefault(_key(tensor), tensor)
            elif op.type == "Placeholder":
                if tensor.dtype in (tf.resource, tf.variant):
                    self.refusal = f"a {tensor.dtype.name} used otherwise than read"
                else:
                    invariants.setdefault(_key(tensor), tensor)
            elif op.type == "ReadVariableOp" and body.is_invariant_input(op.inputs[0]):
                self.reads[_key(tensor)] = (tensor, op.inputs[0])
            elif op in seen:
                continue
            elif not _copyable(op):
                self.refusal = f"the items' computation has a {op.type} op"
            else:
                seen.add(op)
                self.ops.append(op)
                stack.extend(op.inputs)
        frontier = self._narrowed(frontier, invariants, seen)
        order = {op: n for n, op in enumerate(body.graph.get_operations())}
        self.ops.sort(key=order.__getitem__)
        self.frontier = list(frontier.values())
        self.invariants = list(invariants.values())

    def _narrowed(self, frontier: dict, invariants: dict, seen: set) -> dict:
        """Fewer values kept per iteration where the integer ones are computed from fewer
        (an index `[0, a]`, `[1, a + 1]`, `[1, 1]` from the action `a`): those
        integer ops are recomputed batched instead (exact in any order)."""
        roots, ops, found = {}, [], {}
        for key, tensor in frontier.items():
            stack = [tensor]
            while stack:
                t = stack.pop()
                op = t.op
                if op.type == "Const" or op in ops:
                    if op not in ops and op not in seen:
                        ops.append(op)
                elif self.body.is_invariant_input(t):
                    found.setdefault(_key(t), t)
                elif op.type in _INTEGER_OPS and _copyable(op) and all(
                        x.dtype.is_integer or x.dtype == tf.bool for x in
                        list(op.inputs) + list(op.outputs)):
                    ops.append(op)
                    stack.extend(op.inputs)
                elif not t.shape.is_fully_defined():
                    return frontier
                else:
                    roots.setdefault(_key(t), t)
        if len(roots) >= len(frontier):
            return frontier
        for op in ops:
            if op not in seen:
                seen.add(op)
                self.ops.append(op)
        invariants.update(found)
        return roots

    def resources(self) -> list:
        """(handle, a read of it) per variable the items' computation reads: the handle a
        body placeholder, the read's dtype and shape those of the value."""
        found = {}
        for read, handle in self.reads.values():
            found.setdefault(_key(handle), (handle, read))
        return list(found.values())


def _writes_variables(graph, seen: set | None = None) -> bool:
    """Whether the body, or a function it calls (a branch, a nested loop), may write a
    resource: its reads then need not be the values read after the loop."""
    seen = set() if seen is None else seen
    for op in graph.get_operations():
        if op.type.startswith(_WRITES):
            return True
        for attr in op.node_def.attr.values():
            names = [attr.func.name] if attr.HasField("func") else \
                [f.name for f in attr.list.func] if attr.HasField("list") else []
            for name in names:
                if not name or name in seen:
                    continue
                seen.add(name)
                function = graph._get_function(name)
                inner = getattr(function, "graph", None)
                if inner is None or _writes_variables(inner, seen):
                    return True  # (a function whose ops cannot be read counts as a write)
    return False


def _stash(body: _Body, index, frontier: list) -> list:
    """Adds one list per frontier tensor to the While op, written at `index` (the items'
    write position) each iteration; returns the loop's outputs for them (as
    `_WhileGrad` adds its accumulators)."""
    while_op, graph = body.op, body.graph
    cond = while_op._cond_graph
    count = len(graph.outputs)
    with while_op.graph.as_default(), control_flow_util_v2.clear_control_inputs():
        empties = [list_ops.empty_tensor_list(element_shape=t.shape, element_dtype=t.dtype)
                   for t in frontier]
    with graph.as_default():
        for empty, tensor in zip(empties, frontier):
            handle = graph.capture(empty)
            graph.outputs.append(list_ops.tensor_list_set_item(
                handle, index, tensor, resize_if_index_out_of_bounds=True))
    with cond.as_default():
        for empty in empties:
            cond.capture(empty)
    graph.name += "_stashed"
    cond.name += "_stashed"
    while_op._set_func_attr("cond", control_flow_util_v2.create_new_tf_function(cond))
    while_op._set_func_attr("body", control_flow_util_v2.create_new_tf_function(graph))
    while_op._set_type_list_attr("T", graph.output_types)
    while_op._set_shape_list_attr("output_shapes", graph.output_shapes)
    while_op._add_while_inputs(empties)
    new = graph.outputs[count:]
    while_op._add_outputs([t.dtype for t in new], [t.shape for t in new])
    return list(while_op.outputs[-len(frontier):]) if frontier else []


def _rebuild(op, inputs: list) -> list:
    """`op` again on `inputs` (in `pfor`'s loop function); its outputs."""
    if op.type == "StridedSlice":
        indexed = _indexed(op, inputs)
        if indexed is not None:
            return [indexed]
    attrs = {k: v for k, v in op.node_def.attr.items() if not k.startswith("_")}
    return ops.get_default_graph()._create_op_internal(
        op.type, inputs, [t.dtype for t in op.outputs], attrs=attrs,
        op_def=op.op_def).outputs


def _indexed(op, inputs: list):
    """`x[i, j]` with indices that vary per iteration (a sampled action) as a gather:
    `pfor` batches a StridedSlice only with one begin for all iterations (else it runs a
    loop). Where each leading dimension is one index and the rest are whole."""
    x, begin = inputs[0], inputs[1]
    attr = op.node_def.attr
    strides = tf.get_static_value(op.inputs[3])
    if tf.get_static_value(op.inputs[1]) is not None or strides is None or \
            attr["ellipsis_mask"].i or attr["new_axis_mask"].i or \
            any(int(v) != 1 for v in strides):
        return None
    shrink, whole = attr["shrink_axis_mask"].i, attr["begin_mask"].i & attr["end_mask"].i
    count = len(strides)
    indexed = [bool(shrink >> d & 1) for d in range(count)]
    leading = indexed.index(False) if False in indexed else count
    if any(indexed[leading:]) or any(not whole >> d & 1 for d in range(leading, count)):
        return None
    index = begin[:leading]
    index = tf.where(index < 0, index + tf.shape(x, out_type=index.dtype)[:leading], index)
    return tf.gather_nd(x, index)


def _while_op(array: tf.TensorArray):
    tensor = array.flow
    while tensor.op.type == "Identity" and tensor.op.inputs:
        tensor = tensor.op.inputs[0]
    return tensor.op if tensor.op.type in ("While", "StatelessWhile") else None


class LoopLists:
    """One generalized loop's grown lists under a tape: `body_traced` in the body, then
    `stacked` for each list's items after the loop."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.active = record.could_possibly_record()
        self.calls = tracer.tape_calls
        self.writes: list | None = None
        self.refusals: list[str] = []

    def body_traced(self, arrays: list) -> None:
        """After the body's trace: where each list's item was written (or nothing)."""
        if not self.active or self.tracer.tape_calls != self.calls:
            self.active = False
            return
        self.writes = [a.flow.op if a.flow.op.type == "TensorListSetItem" else None
                       for a in arrays]

    def stacked(self, arrays: list, totals: list, starts: list, before: list) -> list:
        """Each list's items, `array.stack()[:total]`. A list whose items the loop
        computes from the tape's sources and per-iteration values alone reaches the tape
        through one batched gradient; one whose items have no gradient, not at all.
        `starts[k]`: the first position the loop writes (an int; else the list keeps TF's
        gradient); `before[k]`: the items written before the loop, below it."""
        plan = self._plan(arrays, starts, before) if arrays and self.active and \
            self.writes else None
        if plan is None:
            return [a.stack()[:t] for a, t in zip(arrays, totals)]
        body, groups, cut = plan
        notes = self.tracer.loop_gradients
        notes += [f"{len(members)} grown list(s): one batched gradient after the loop "
                  f"({len(items[0].frontier)} value(s) kept per iteration)"
                  for members, items in groups]
        notes += [f"kept TF's loop gradient: {reason}" for reason in self.refusals]
        stacks = [None] * len(arrays)
        with record.stop_recording():
            for k in cut | {k for members, _ in groups for k in members}:
                stacks[k] = arrays[k].stack()[:totals[k]]
        for members, items in groups:
            k = members[0]
            self._record(body, items, [stacks[m] for m in members], starts[k], totals[k],
                         [before[m] for m in members])
        return [s if s is not None else a.stack()[:t]
                for s, a, t in zip(stacks, arrays, totals)]

    def _plan(self, arrays: list, starts: list, before: list):
        while_op = _while_op(arrays[0])
        if while_op is None or not hasattr(while_op, "_body_graph") or \
                not first_order(list(while_op.inputs)) or \
                _writes_variables(while_op._body_graph):
            return None
        body = _Body(while_op)
        cut, by_index = set(), {}
        for k, write in enumerate(self.writes):
            if write is None or type(starts[k]) is not int:
                continue
            mark = body.depends.get(_key(write.inputs[2]))
            if mark is None:
                if not before[k] or not record.should_record_backprop(before[k]):
                    cut.add(k)  # (no gradient into the list: none through the loop)
            elif mark == "source":
                group = (_key(write.inputs[1]), starts[k])
                by_index.setdefault(group, (write.inputs[1], []))[1].append(k)
            else:
                self.refusals.append("an item depends on a value the loop carries")
        groups = []
        for index, members in by_index.values():
            items = _Items(body, [self.writes[k].inputs[2] for k in members])
            if items.refusal:
                self.refusals.append(items.refusal)
                continue
            try:
                items.vjp = _vjp_function(items)
            except Exception as error:  # noqa: BLE001 - (pfor: no batched form of an op...)
                self.refusals.append(f"its recompute cannot be built: {error}")
                continue
            groups.append((members, (items, index)))
        if not groups and not cut:
            self.tracer.loop_gradients.extend(
                f"kept TF's loop gradient: {reason}" for reason in self.refusals)
            return None
        return body, groups, cut

    def _record(self, body: _Body, plan: tuple, results: list, start: int, total,
                before: list) -> None:
        items, index = plan
        stash = _stash(body, index, items.frontier) if items.frontier else []
        resources = items.resources()
        with record.stop_recording():
            values = [gen_resource_variable_ops.read_variable_op(
                body.outer(h), read.dtype) for h, read in resources]
            stacked = [list_ops.tensor_list_gather(
                s, tf.range(start, total), element_dtype=f.dtype, element_shape=f.shape)
                for s, f in zip(stash, items.frontier)]
        invariants = [body.outer(t) for t in items.invariants]
        sources = [body.outer(h) for h, _ in resources] + \
            [x for x in invariants if _differentiable(x.dtype)]
        vjp = items.vjp
        flat_before = [t for group in before for t in group]

        def backward(*grads):
            grads = [tf.zeros_like(r) if g is None else g for g, r in zip(grads, results)]
            found = vjp(*[g[start:] for g in grads], *values, *invariants, *stacked)
            return list(found) + [g[j] for g, group in zip(grads, before)
                                  for j in range(len(group))]

        record.record_operation_backprop_only(
            "JanusBatchedLoopItems", results, sources + flat_before, backward)


def _vjp_function(items: _Items):
    """A concrete function: (the items' gradients, the variables' values, the invariant
    inputs, the frontier stacks) -> the gradients of the variables' values and of the
    differentiable invariants. Traced before the loop is changed: a recompute that
    cannot be built (an op `pfor` cannot batch...) refuses then."""
    resources = items.resources()
    specs = [tf.TensorSpec([None] + t.shape.as_list(), t.dtype) for t in items.items] + \
        [tf.TensorSpec(read.shape, read.dtype) for _, read in resources] + \
        [tf.TensorSpec(t.shape, t.dtype) for t in items.invariants] + \
        [tf.TensorSpec([None] + t.shape.as_list(), t.dtype) for t in items.frontier]
    n_items, n_values, n_inv = len(items.items), len(resources), len(items.invariants)
    handle_keys = [_key(h) for h, _ in resources]

    def vjp(*args):
        grads = list(args[:n_items])
        vals = list(args[n_items:n_items + n_values])
        invs = list(args[n_items + n_values:n_items + n_values + n_inv])
        stacks = list(args[n_items + n_values + n_inv:])
        count = tf.shape(grads[0])[0]

        def loop_fn(i):
            mapping = {}
            for f, s in zip(items.frontier, stacks):
                mapping[_key(f)] = tf.gather(s, i)
            for t, v in zip(items.invariants, invs):
                mapping[_key(t)] = v
            for read_key, (_, handle) in items.reads.items():
                mapping[read_key] = vals[handle_keys.index(_key(handle))]
            for op in items.ops:
                new = _rebuild(op, [mapping[_key(t)] for t in op.inputs])
                for old, out in zip(op.outputs, new):
                    mapping[_key(old)] = out
            return [mapping[_key(t)] for t in items.items]

        outs = pfor(loop_fn, count, fallback_to_while_loop=False)
        wrt = vals + [v for v in invs if _differentiable(v.dtype)]
        found = tf.gradients(outs, wrt, grad_ys=grads)
        return [tf.zeros_like(w) if g is None else tf.convert_to_tensor(g)
                for g, w in zip(found, wrt)]

    return tf.function(vjp, autograph=False).get_concrete_function(*specs)
