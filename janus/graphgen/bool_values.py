"""`and`/`or`/`not`, conditional expressions and chained comparisons as values in a graph
(transform/bool_values.py makes the hooks; the operands after the first are thunks).

    a or b         a Python value: Python's `or`. A tensor (a fed number, a `.numpy()`
                   scalar): specialized, as an `if` test is: its truth asserted in-graph
                   (the guard fails when it flips: the call reruns plainly, and janus
                   makes a graph for the other outcome), the result `a` itself or `b`, as
                   in Python. Generalized (`plan.general_branches`, as for `if_stmt`;
                   always in a loop built as one tf.while_loop and in a function TF
                   traces): tf.cond(a, lambda: a, b), whose `b` branch runs only where
                   Python runs `b`; both results of one kind: tensors of one dtype and
                   shape, fed (or Python) numbers of one type, `.numpy()` scalars of one
                   dtype.
    a and b        the same, tf.cond(a, b, lambda: a); `a < b < c`: an `and`
    x if t else y  the same, tf.cond(t, x, y)
    not a          specialized: the Python bool of the guarded outcome; generalized: a fed
                   Python bool (SymbolicScalar) computed in the graph

Where the tf.cond cannot be (results of two kinds, a branch that prints, writes the heap
or a variable, raises while traced, or recurses into the same site), the same trace
forgets what the attempt recorded (`HeapLedger.rollback`) and specializes the test; a
branch that raised (`t or xs[5]`) makes the graph take the other outcome, guarded; not
where the raise is the trace's own (`t or divmod(k, 3)[1]` of a fed `k`: a stand-in's
TypeError) and profiling saw Python evaluate that branch: the trace fails there instead of
guarding an outcome those calls do not have (F338).
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import identity, number_functions
from janus.graphgen.dead_ends import after_raising_ops
from janus.graphgen.exits import _condition, _predicate
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.host_scalars import HostScalar
from janus.graphgen.value_kinds import is_symbolic, variable_read
from janus.graphgen.values import DynamicList, MixedBool, SymbolicScalar
from janus.tensors import is_tensor
from janus.operation_hooks import operation_hook

_NUMBERS = (bool, int, float)


class _NotGeneral(ConversionError):
    """A tensor-valued `or`/`and`/`if-else` that cannot be one tf.cond: its results differ
    in kind, a branch has effects or raises while traced, or recurses into it."""


def _symbolic(value) -> bool:
    """Whether `value`'s truth is known only when the graph runs."""
    return isinstance(value, (SymbolicScalar, HostScalar, MixedBool)) or is_symbolic(value)


def truth(value):
    """What a graph tests the truth of for `value`: a stand-in's tensor, a tensor of one
    element as a scalar, a variable's value, a Python value as it is. A tensor of more
    elements (or of a number known only at run time) fails the trace: plain Python raises
    (or decides per call)."""
    value = variable_read(value)
    if isinstance(value, (SymbolicScalar, HostScalar, MixedBool)):
        return value.tensor
    if not is_symbolic(value) or value.shape.rank in (0, None):
        return value
    if value.shape.is_fully_defined() and value.shape.num_elements() == 1:
        return tf.reshape(value, [])
    raise ConversionError("the truth value of a tensor of more than one element (or of a "
                          "number of them known only when the graph runs)")


_BOOLS = frozenset({("number", bool), ("numpy", tf.bool), ("tensor", tf.bool, ()),
                    ("mixed", bool)})
"""Kinds of a branch's result that are bools of some type: a tf.cond of two of them gives
a MixedBool."""


def _as_branch_result(value) -> tuple:
    """(tensor, kind) of a branch's result: kind is ("tensor", dtype, shape), ("number",
    type) for a fed or Python number, ("numpy", dtype) for a `.numpy()` scalar."""
    if isinstance(value, SymbolicScalar):
        return value.tensor, ("number", value.kind)
    if isinstance(value, MixedBool):
        return value.tensor, ("mixed", bool)
    if type(value) in _NUMBERS:
        kind = type(value)
        if kind is int and not -2 ** 63 <= value < 2 ** 63:
            raise _NotGeneral("a generalized `or`/`and`/`if-else` value: an int beyond "
                                  "int64")
        return tf.constant(value, SymbolicScalar._dtype(kind)), ("number", kind)
    if isinstance(value, HostScalar):
        return value.tensor, ("numpy", value.tensor.dtype)
    if is_tensor(value) and not isinstance(value, tf.Variable) and \
            hasattr(value, "dtype") and isinstance(value.shape, tf.TensorShape):
        shape = tuple(value.shape.as_list()) if value.shape.rank is not None else None
        return value, ("tensor", value.dtype, shape)
    raise _NotGeneral(f"a generalized `or`/`and`/`if-else` value is a "
                          f"{type(value).__name__} (tensors and numbers only)")


def _from_branch(tensor, kind: tuple):
    if kind[0] == "mixed":
        return MixedBool(tensor)
    if kind[0] == "number":
        return SymbolicScalar(tensor, kind[1])
    if kind[0] == "numpy":
        return HostScalar(tensor)
    return tensor


class BoolValues:
    """Mixed into the graph runtime (next to ExitLoops, whose `_in_general_exit_loop` it
    uses, and GeneralControlFlow's `_unchanged_heap`)."""

    @operation_hook
    def or_value(self, site, value, rest):
        return self._choose(site, value, lambda: value, rest)

    @operation_hook
    def and_value(self, site, value, rest):
        return self._choose(site, value, rest, lambda: value)

    @operation_hook
    def if_value(self, site, test, if_true, if_false):
        return self._choose(site, test, if_true, if_false)

    @operation_hook
    def min_max(self, site, op, fn, *args):
        """`min(...)` / `max(...)`: of fed numbers of one kind, a graph op with no guard
        (graphgen/number_functions.py, as a call of `min` gives); else Python's fold, each
        test a conditional expression's (transform/runtime.py)."""
        if number_functions.handles(fn, args, {}):
            return number_functions.dispatch(fn, args, {})
        return super().min_max(site, op, fn, *args)

    @operation_hook
    def not_value(self, site, value):
        value = truth(value)
        if self._general(site, value):
            return SymbolicScalar(tf.logical_not(_condition(_predicate(value))), bool)
        return not self.test(site, value)

    def _general(self, site, value) -> bool:
        """Whether the truth of `value` at `site` becomes a tensor (no guard): where the
        plan says so, where a guard cannot be (a tf.while_loop janus builds, a function TF
        traces), and where the profile cannot say which outcome to expect (the operand
        was never reached while profiling, or is reached more often in this trace)."""
        if not _symbolic(value):
            return False
        tracer = self.tracer
        key = (self.key, site)
        record = tracer.profile.sites.get(key)
        return key in tracer.plan.general_branches or tracer.callback_depth > 0 or \
            self._in_general_exit_loop() or record is None or not record.outcomes or \
            record.stable_outcome is None and \
            tracer.test_counts.get(key, 0) >= len(record.sequence)

    def _choose(self, site, test, if_true, if_false):
        test = truth(test)
        if self._general(site, test):
            return self._cond_value(site, test, if_true, if_false)
        return if_true() if self.test(site, test) else if_false()

    def _cond_value(self, site, test, if_true, if_false):
        """tf.cond of the two thunks; where it cannot be one (`_NotGeneral`) and the
        attempt left nothing behind, the test is specialized instead, as in a graph that
        does not generalize it."""
        tracer = self.tracer
        building = tracer.value_conds
        if (self.key, site) in building:  # (a branch reached it again: recursion)
            raise _NotGeneral("a tensor-valued `or`/`and`/`if-else` recurses into itself")
        state = (tracer.ledger.checkpoint(), tracer.shadow.writes, tracer.local_writes)
        building.add((self.key, site))
        failure_at: list = []  # (the branch that raised: TF may re-make the exception)
        try:
            return self._traced_cond(test, if_true, if_false, failure_at)
        except _NotGeneral:
            if tracer.callback_depth or not _undone(tracer, state):
                raise  # (inside a branch: the outer tf.cond specializes instead)
            raised = failure_at[0] if failure_at else None  # (branch index, exception)
        finally:
            building.discard((self.key, site))
            failure_at.clear()  # (its exception's frames hold the list: a cycle, F441)
        if raised is None:
            return if_true() if self.test(site, test) else if_false()
        # one branch raised while traced (`t or xs[5]`): the graph takes the other, guarded
        outcome = raised[0] == 1
        self._refuse_own_raise(site, not outcome, raised[1])
        predicate = _condition(_predicate(test))
        tracer.assume(self._site(site), self.key,
                      predicate if outcome else tf.logical_not(predicate), outcome)
        return if_true() if outcome else if_false()

    def _refuse_own_raise(self, site, taken: bool, error: Exception) -> None:
        """The branch of outcome `taken` raised `error` while traced. Where the raise is
        the trace's own (a stand-in's TypeError: `abs(dv3)`, `divmod(k, 3)` of a number
        janus feeds, where Python has a float or an int) and the profile saw Python take
        that branch, a graph guarding the other outcome would fail its guard on the calls
        the profile saw, every time (F338): the trace fails instead."""
        record = self.tracer.profile.sites.get((self.key, site))
        if record is not None and record.outcomes.get(taken, 0) > 0 and _own_raise(error):
            where = self._site(site)
            raise ConversionError(f"an operand after `{where.text}` raised while traced "
                                  f"({type(error).__name__}: {error}), where Python "
                                  "evaluated it while profiling", **where.location())

    def _traced_cond(self, test, if_true, if_false, failure_at: list):
        """tf.cond of two thunks whose results are of one kind; each runs in its branch
        (traced once: no heap, print or variable effects; a tensor test there is a tf.cond
        too: a guard cannot live in a branch)."""
        tracer = self.tracer
        predicate = _condition(_predicate(test))
        before = dict(tracer.shadow.values)
        kinds: list = []

        def branch(fn, index):
            def run():
                state = (tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes)
                tracer.callback_depth += 1
                try:
                    value = fn()
                except _NotGeneral:
                    raise
                except ConversionError as error:  # (a test in it, say: specialized instead)
                    raise _NotGeneral(error.reason) from error
                except Exception as error:  # noqa: BLE001 - `t or xs[9]`: where Python runs it
                    failure_at.append((index, error))
                    raise _NotGeneral(f"{type(error).__name__}: {error}") from error
                finally:
                    tracer.callback_depth -= 1
                    tracer.shadow.values = dict(before)
                if (tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes) != state:
                    raise _NotGeneral("heap, variable or print side effects inside a "
                                      "generalized `or`/`and`/`if-else` value")
                tensor, kind = _as_branch_result(value)
                if kinds and kinds[0] != kind and not {kinds[0], kind} <= _BOOLS:
                    raise _NotGeneral("the two results of a tensor-valued `or`/`and`/"
                                      f"`if-else` differ ({kinds[0]} and {kind})")
                kinds.append(kind)
                return after_raising_ops(tf.identity(tensor))
            return run

        try:
            result = _select(predicate, tf.cond(predicate, branch(if_true, 0),
                                                branch(if_false, 1)))
            identity.built(tracer, result)
        finally:
            tracer.shadow.values = dict(before)
        if kinds[0] != kinds[1]:  # (bools of two types: only its truth is known)
            return MixedBool(result)
        return _from_branch(result, kinds[0])


_TRIVIAL = frozenset({"Const", "Identity", "NoOp", "Placeholder"})
# ops that cannot raise or have effects, on scalars (no shapes to mismatch), cheap
_PURE = _TRIVIAL | {"Abs", "Neg", "Sign", "Square", "Greater", "GreaterEqual", "Less",
                    "LessEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
                    "SelectV2", "Select", "Cast", "AddV2", "Sub", "Mul", "Maximum", "Minimum"}
_MAX_SELECTED = 12  # ops of a branch computed on both paths at most


def _select(predicate, result):
    """A tf.cond whose branches are a few pure scalar ops each (`abs(x) > a or abs(y) >
    b or steps >= m`; of a float, constants: `1.0 if t else -1.0`) as the select of both
    branches computed: a few elementwise ops instead of a branch per run (the tf.cond
    left without a reader is pruned); else `result` as it is. Both computed is the same
    answer: such ops neither raise nor have effects, and compute as they would in the
    branch."""
    found = result
    while found.op.type == "Identity" and found.op.inputs:
        found = found.op.inputs[0]
    op = found.op
    if op.type != "StatelessIf" or len(op.outputs) != 1 or result.shape.rank != 0:
        return result
    graphs = (getattr(op, "_true_graph", None), getattr(op, "_false_graph", None))
    if any(graph is None or len(graph.outputs) != 1 or len(graph.inputs) != len(op.inputs) - 1
           for graph in graphs):
        return result
    needed = [_needed(graph) for graph in graphs]
    # (a float result only of constants: a tape would see a select where Python took one
    # operand, zeros for the other's gradient where Python gives None, and nan where its
    # local derivative is infinite)
    allowed = _PURE if not (result.dtype.is_floating or result.dtype.is_complex) else \
        frozenset({"Const", "Identity", "NoOp"})
    if any(sum(o.type not in _TRIVIAL for o in ops) > _MAX_SELECTED or
           any(o.type not in allowed or o.control_inputs or
               any(t.shape.rank != 0 for t in o.outputs) for o in ops) for ops in needed):
        return result
    values = [_copied(graph, ops, op.inputs[1:]) for graph, ops in zip(graphs, needed)]
    return tf.where(predicate, values[0], values[1])


def _needed(graph) -> list:
    """The ops of branch `graph` its output is computed from, in the order made (an
    unread tf.cond of a nested `or` made a select is not among them)."""
    seen, stack = set(), [graph.outputs[0].op]
    while stack:
        op = stack.pop()
        if op.name not in seen:
            seen.add(op.name)
            stack.extend(t.op for t in op.inputs)
    return [op for op in graph.get_operations() if op.name in seen]


def _copied(graph, ops: list, inputs) -> tf.Tensor:
    """The output of branch `graph` (its `ops`) computed in the graph being built on the
    branch's `inputs`."""
    into = tf.compat.v1.get_default_graph()
    made = {placeholder.ref(): value for placeholder, value in zip(graph.inputs, inputs)}
    for op in ops:
        if op.type == "Placeholder":
            continue
        copy = into._create_op_internal(  # pylint: disable=protected-access
            op.type, [made[t.ref()] for t in op.inputs], [t.dtype for t in op.outputs],
            attrs=dict(op.node_def.attr))
        made.update((t.ref(), c) for t, c in zip(op.outputs, copy.outputs))
    return made[graph.outputs[0].ref()]


_STAND_INS = tuple(f"'{cls.__name__}'" for cls in (
    SymbolicScalar, MixedBool, HostScalar, HostArray, DynamicList)) + ("'SymbolicTensor'",)


def _own_raise(error: Exception) -> bool:
    """Whether `error` is the trace's, not Python's: TF's refusal of a graph tensor's
    Python truth, or a TypeError naming a value janus stands in with (Python's operators
    name the operand's type: "bad operand type for abs(): 'SymbolicScalar'")."""
    if isinstance(error, tf.errors.OperatorNotAllowedInGraphError):
        return True
    return isinstance(error, TypeError) and any(name in str(error) for name in _STAND_INS)


def _undone(tracer, state: tuple) -> bool:
    """Whether the trace could go back to `state` (a ledger checkpoint, variable writes,
    writes to the call's own objects, which cannot be undone), and went."""
    point, writes, local = state
    return tracer.shadow.writes == writes and tracer.local_writes == local and \
        tracer.ledger.rollback(point)
