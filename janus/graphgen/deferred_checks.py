"""A bounded loop's exactness checks, made after the loop instead of in every iteration.

The exactness checks of a loop body (graphgen/checks.py: one elementwise range
check of the floats it computes with, the conditions where Python's arithmetic or numpy
would raise) cost ~20 ops per iteration (an actor-critic step: the joined range check, a
fed float's normal check, numpy `choice`'s validation of p, `SelectV2`, `CheckNumerics`,
the `Assert` that keeps it). In a loop of bounded length they are made after the loop:
each iteration pushes the items it would range-check and the operands of its elementwise
and per-row checks (`checks.Rows`) to lists the loop carries, one per dtype, and ands its
other conditions into a carried `ok` that also stops the loop; the enclosing graph checks
them all with its own checks:

    tf.while_loop(test, body, vars)      ->  tf.while_loop(test and ok, body', vars + lists + ok)
    body:  ... CheckNumerics(in_range(x)     body': ... items.push_back([x, p])
                 and valid(p) and c)                    ok = ok and c
                                              after: in_range(stack(items)[:, x's]),
                                                     valid(stack(items)[:, p's]), ok
                                                     (the enclosing graph's checks)

Why the answer stays Python's: a failed check means "rerun the call plainly" (a range
check's also "regenerate with op-by-op checks"); nothing the graph computed is committed,
and an op that fails later on a value the check would have refused reruns the call
plainly too. The first iteration whose conditions fail is the last one run, as the
per-iteration check (unordered with the iteration's other ops) let it run before. What
must not happen is a graph that never ends: the loop is bounded (a `for` over a sequence
of known length: `bounded_loop`'s callers), and a body holding a loop that may not end
by itself (a `while`, a loop with an exit test, a TF loop of the user's:
`unbounded_inside`) checks in every iteration as before.
"""
from __future__ import annotations

import weakref

import tensorflow as tf
from tensorflow.python.ops import list_ops

from janus.graphgen import active, checks

_LOOPS = frozenset({"While", "StatelessWhile"})
# dtypes of the items a deferring body can push: a list of each is carried
_DTYPES = (tf.float64, tf.float32, tf.int64, tf.int32, tf.bool)
_UNBOUNDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> True
MAX_ITERATIONS = 1 << 16  # a longer `range` checks per iteration (the lists' memory)


class Deferral:
    """One bounded loop body's deferred checks (`checks.flush` hands them over
    through `tracer.deferring`): per dtype, the items one iteration pushes (range-checked
    items, the operands of row checks) with what each slice of them is; the conjunction of
    the other conditions."""

    def __init__(self):
        self.parts: dict = {}  # dtype -> [(items as a vector, what they are)]
        self.checks: list = []  # the row checks, by index
        self.ok = None  # the other conditions of one iteration (a bool), if any
        self.bounded: set = set()  # names of the bounded loops built in the body

    def may_defer(self) -> bool:
        """No loop that may not end by itself in the body."""
        graph = tf.compat.v1.get_default_graph()
        return not _UNBOUNDED.get(graph) and not any(
            op.type in _LOOPS and op.name not in self.bounded for op in graph.get_operations())

    def take_conditions(self, conditions: list) -> bool:
        """Take the body's conditions (bool tensors): True where deferred."""
        if not self.may_defer():
            return False
        self.ok = conditions[0] if len(conditions) == 1 else \
            tf.reduce_all(tf.stack(conditions))
        return True

    def take_rows(self, rows: list) -> bool:
        """Take the body's row checks (`checks.Rows`): True where deferred (all
        operands of static shapes)."""
        if not self.may_defer() or not _pushable(t for r in rows for t in r.operands):
            return False
        for r in rows:
            index = len(self.checks)
            self.checks.append(r)
            for j, t in enumerate(r.operands):
                self._push(t, ("row", index, j, t.shape))
        return True

    def take_ranges(self, groups_by_dtype: dict) -> bool:
        """Take the body's range checks ({dtype: [(check, of, items)]}): True where
        deferred (items of static shapes), False where they must be checked in the body."""
        if not self.may_defer() or not _pushable(
                x for groups in groups_by_dtype.values() for _, _, x in groups):
            return False
        for groups in groups_by_dtype.values():
            for check, of, x in groups:
                self._push(x, ("range", check, of))
        return True

    def _push(self, x: tf.Tensor, what: tuple) -> None:
        self.parts.setdefault(x.dtype, []).append(
            (x if x.shape.rank == 1 else tf.reshape(x, [-1]), what))

    def items(self, dtype: tf.DType):
        """What one iteration pushes to the list of `dtype` (None: nothing)."""
        parts = self.parts.get(dtype)
        if not parts:
            return None
        flat = [x for x, _ in parts]
        # (no gradient: a tape around the loop must not see a path through the lists)
        return tf.stop_gradient(flat[0] if len(flat) == 1 else tf.concat(flat, 0))


def _pushable(tensors) -> bool:
    return all(t.dtype in _DTYPES and t.shape.is_fully_defined() for t in tensors)


def unbounded_inside() -> None:
    """Record that a loop that may not end by itself is being built in the current graph:
    no loop enclosing it defers its checks."""
    for graph in checks.enclosing_graphs():
        _UNBOUNDED[graph] = True


def bounded_loop(condition, body, loop_vars: tuple, length=None) -> tuple:
    """`tf.while_loop(condition, body, loop_vars)` for a loop of bounded length (`body`
    returns a tuple like `loop_vars`, after `after_raising_ops`): the body's checks made
    after the loop (see the module docstring). `length`, where known when traced (a
    `range`), bounds the memory the lists take: past `MAX_ITERATIONS`, every iteration
    checks its own (a loop over a list janus feeds pushes about as much as the list
    holds)."""
    tracer = active.get()
    if tracer is None or type(length) is int and length > MAX_ITERATIONS:
        results = tf.while_loop(condition, body, loop_vars)
        if tracer is not None:
            _built_bounded(tracer)
        return results
    deferral, n = Deferral(), len(loop_vars)

    def deferring_condition(*values):
        return tf.logical_and(condition(*values[:n]), values[-1])

    def deferring_body(*values):
        graph = tf.compat.v1.get_default_graph()
        tracer.deferring[graph] = deferral
        try:
            outputs = body(*values[:n])
        finally:
            del tracer.deferring[graph]
        lists = []
        for items, dtype in zip(values[n:-1], _DTYPES):
            pushed = deferral.items(dtype)
            lists.append(items if pushed is None else
                         list_ops.tensor_list_push_back(items, pushed))
        ok = values[-1] if deferral.ok is None else tf.logical_and(values[-1], deferral.ok)
        return tuple(outputs) + tuple(lists) + (ok,)

    lists = tuple(list_ops.empty_tensor_list(element_shape=None, element_dtype=dtype)
                  for dtype in _DTYPES)
    results = tf.while_loop(deferring_condition, deferring_body,
                            tuple(loop_vars) + lists + (tf.constant(True),))
    _built_bounded(tracer)
    operands: dict = {}  # row check index -> {operand index: stacked operand}
    for dtype, items in zip(_DTYPES, results[n:-1]):
        parts = deferral.parts.get(dtype)
        if not parts:
            continue
        size = sum(int(x.shape[0]) for x, _ in parts)
        stacked = list_ops.tensor_list_stack(items, dtype, element_shape=[size])
        start = 0
        for x, what in parts:
            part = stacked[:, start:start + int(x.shape[0])]
            start += int(x.shape[0])
            if what[0] == "range":
                checks.require_range(what[1], part, what[2])
            else:
                _, index, j, shape = what
                operands.setdefault(index, {})[j] = tf.reshape(part, [-1, *shape])
    for index, check in enumerate(deferral.checks):
        checks.require(tf.reduce_all(check.check(
            *(operands[index][j] for j in range(len(check.operands))))))
    if deferral.ok is not None:
        checks.require(results[-1])
    return results[:n]


def _built_bounded(tracer) -> None:
    """The loop just built in the current graph is bounded: a deferring body around it
    may keep deferring."""
    graph = tf.compat.v1.get_default_graph()
    deferral = tracer.deferring.get(graph)
    loop = next((op for op in reversed(graph.get_operations()) if op.type in _LOOPS), None)
    if deferral is not None and loop is not None:
        deferral.bounded.add(loop.name)
