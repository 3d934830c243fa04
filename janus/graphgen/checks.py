"""A graph's exactness checks: gathered while the trace runs, made where each graph,
loop body or branch ends.

graphgen/exact_numbers.py decides what must hold for TF's arithmetic to be Python's and
numpy's; this module keeps those conditions until the graph being built ends and then
makes them a few ops (`flush`, called by graphgen/dead_ends.after_raising_ops and at the
end of the trace):

    require(ok)                      a bool: conjoined, one `CheckNumerics` per graph
    require_each(check, *tensors)    an elementwise check: scalars of a kind stacked
    require_rows(check, *tensors)    a check per row (numpy `choice`'s p)
    require_range(check, x)          items zero or of magnitude in the fast range: all the
                                     graph's joined into one elementwise check, its
                                     failure `RANGE_MESSAGE` ("regenerate with op-by-op
                                     checks")

A failed check raises InvalidArgumentError: the call reruns plainly. A bounded loop's
body hands its checks to the loop, which makes them after it (graphgen/deferred_checks.py
through `tracer.deferring`).
"""
from __future__ import annotations

import weakref

import numpy as np
import tensorflow as tf

from janus.graphgen import active

_MESSAGE = "janus: Python's arithmetic differs here from TensorFlow's"
RANGE_MESSAGE = "janus: a float left the range of its fast exactness check"
MESSAGES = frozenset({_MESSAGE, RANGE_MESSAGE})
_RANGE = FAST_RANGE = {tf.float64: (2.0 ** -500, 2.0 ** 500),
                       tf.float32: (2.0 ** -60, 2.0 ** 60)}


def require(ok: tf.Tensor) -> None:
    """The graph being built must fail unless `ok` (a bool tensor) holds (True: nothing
    to check)."""
    if ok is True:
        return
    tracer = active.get()
    if tracer is None:  # (no trace to gather it: its own op)
        _fail_unless(ok)
        return
    tracer.pending_checks.setdefault(tf.compat.v1.get_default_graph(), []).append(ok)


def require_each(check, *tensors: tf.Tensor) -> None:
    """`require(check(*tensors))` for an elementwise `check` (a module-level function):
    on scalars, the checks of one kind are computed together where the graph ends (its
    operands stacked: a few ops per kind, not a few per arithmetic operation); arrays
    are checked there too (a bounded loop's after the loop: graphgen/deferred_checks)."""
    tracer = active.get()
    if tracer is None:
        require(_all(check(*tensors)))
        return
    pending = tracer.pending_checks.setdefault(tf.compat.v1.get_default_graph(), [])
    if any(t.shape.rank != 0 for t in tensors):
        pending.append(Rows(check, tensors, elementwise=True))
    else:
        pending.append(((check, tuple(t.dtype for t in tensors)), tensors))


def require_rows(check, *tensors: tf.Tensor) -> None:
    """`require(all(check(*rows)))`, `rows` each of `tensors` with a leading axis of one:
    `check` gives a bool per row, computing each row as it would alone (a cumulative op
    along another axis, elementwise ops across it), so a bounded loop checks the rows
    of all its iterations at once after it (graphgen/deferred_checks.py)."""
    tracer = active.get()
    if tracer is None:
        require(_all(check(*(tf.expand_dims(t, 0) for t in tensors))))
        return
    tracer.pending_checks.setdefault(tf.compat.v1.get_default_graph(), []).append(
        Rows(check, tensors))


class Rows:
    """A pending check of `require_each` on arrays (`elementwise`) or `require_rows`:
    `check(*operands)` with a leading axis of rows added (of one, or of a loop's
    iterations) gives the bools to require."""

    def __init__(self, check, operands: tuple, elementwise: bool = False):
        self.check, self.operands, self.elementwise = check, tuple(operands), elementwise

    def condition(self) -> tf.Tensor:
        """The check of these operands alone."""
        if self.elementwise:
            return _all(self.check(*self.operands))
        return _all(self.check(*(tf.expand_dims(t, 0) for t in self.operands)))


def flush():
    """One op checking the conditions `require`d in the graph being built (the output of
    a `CheckNumerics`, which janus keeps even when nothing reads it: graphgen/
    dead_ends.py), or None when there are none or a bounded loop checks them after it."""
    tracer = active.get()
    if tracer is None:
        return None
    pending = tracer.pending_checks.pop(tf.compat.v1.get_default_graph(), None)
    if not pending:
        return None
    # (a bounded loop's body hands its checks to the loop: graphgen/deferred_checks.py)
    deferral = tracer.deferring.get(tf.compat.v1.get_default_graph())
    conditions, kinds, ranged, rows = [], {}, {}, []
    for item in pending:
        if isinstance(item, _InRange):
            ranged.setdefault((item.check, item.items.dtype, item.of), []).append(item.items)
        elif isinstance(item, tuple):
            kinds.setdefault(item[0], []).append(item[1])
        elif isinstance(item, Rows):
            rows.append(item)
        else:
            conditions.append(item)
    for (check, _), operands in kinds.items():
        if check in _RANGE_CHECKS:  # (scalars: with the arrays' items of their kind)
            unique = list({operand[0].ref(): operand[0] for operand in operands}.values())
            items = unique[0] if len(unique) == 1 else tf.stack(unique)  # (each tensor once)
            ranged.setdefault((check, items.dtype, None), []).append(items)
        elif len(operands) == 1 and deferral is None:
            conditions.append(_all(check(*operands[0])))
        else:
            rows.append(Rows(check, operands[0] if len(operands) == 1 else
                             [tf.stack(column) for column in zip(*operands)], elementwise=True))
    if rows and (deferral is None or not deferral.take_rows(rows)):
        conditions.extend(r.condition() for r in rows)
    if ranged:  # (its own op: its failure means "regenerate with op-by-op checks")
        by_dtype: dict = {}
        for (check, dtype, of), items in ranged.items():
            by_dtype.setdefault(dtype, []).append((check, of, _joined(items)))
        if deferral is None or not deferral.take_ranges(by_dtype):
            _fail_unless(_conjunction([_ranges_ok(groups) for groups in by_dtype.values()]),
                         RANGE_MESSAGE)
    if not conditions or deferral is not None and deferral.take_conditions(conditions):
        return None
    return _fail_unless(_conjunction(conditions))


def _ranges_ok(groups: list) -> tf.Tensor:
    """Whether every item of each (check, of, items) of one dtype passes its range check:
    one elementwise check of all the items joined, each against its own bounds (a few
    ops in all, not a few per kind)."""
    if len(groups) == 1 or any(not x.shape.is_fully_defined() for _, _, x in groups):
        return _conjunction([_all(check(x, of)) for check, of, x in groups])
    flat = [tf.reshape(x, [-1]) if x.shape.rank != 1 else x for _, _, x in groups]
    sizes = [int(x.shape[0]) for x in flat]
    dtype = flat[0].dtype
    low = np.concatenate([np.full(n, _RANGE[dtype if of is None else of][0]) for (_, of, _), n
                          in zip(groups, sizes)])
    high = np.concatenate([np.full(n, _RANGE[dtype if of is None else of][1])
                           for (_, of, _), n in zip(groups, sizes)])
    zero_ok = np.concatenate([np.full(n, check is in_range) for (check, _, _), n
                              in zip(groups, sizes)])
    x = tf.concat(flat, 0)
    magnitude = tf.abs(x)
    ok = tf.logical_and(magnitude >= tf.constant(low, dtype), magnitude <= tf.constant(high, dtype))
    if zero_ok.any():
        ints, mask, _ = FLOAT_BITS[dtype]
        zero = tf.equal(tf.bitwise.bitwise_and(tf.bitcast(x, ints), scalar(mask, ints)),
                        scalar(0, ints))
        if not zero_ok.all():
            zero = tf.logical_and(zero, tf.constant(zero_ok))
        ok = tf.logical_or(zero, ok)
    return tf.reduce_all(ok)


def _joined(tensors: list) -> tf.Tensor:
    """The items of `tensors` (of one dtype) as one vector (a single one as it is)."""
    if len(tensors) == 1:
        return tensors[0]
    return tf.concat([t if t.shape.rank == 1 else tf.reshape(t, [-1]) for t in tensors], 0)


def _conjunction(conditions: list) -> tf.Tensor:
    return conditions[0] if len(conditions) == 1 else tf.reduce_all(tf.stack(conditions))


def _all(ok: tf.Tensor) -> tf.Tensor:
    return ok if ok.shape.rank == 0 else tf.reduce_all(ok)


def _fail_unless(ok: tf.Tensor, message: str = _MESSAGE) -> tf.Tensor:
    return tf.debugging.check_numerics(
        tf.where(ok, tf.constant(0.0, tf.float64), tf.constant(float("nan"), tf.float64)),
        message)


def in_range(x: tf.Tensor, of: tf.DType | None = None) -> tf.Tensor:
    """Elementwise: zero (by its bits: a subnormal is not), or a magnitude in the fast
    check's range (of dtype `of`, x's own by default; nan and inf fail)."""
    ints, magnitude, _ = FLOAT_BITS[x.dtype]
    bits = tf.bitwise.bitwise_and(tf.bitcast(x, ints), scalar(magnitude, ints))
    return tf.logical_or(tf.equal(bits, scalar(0, ints)), nonzero_in_range(x, of))


def nonzero_in_range(x: tf.Tensor, of: tf.DType | None = None) -> tf.Tensor:
    low, high = _RANGE[x.dtype if of is None else of]
    magnitude = tf.abs(x)
    return tf.logical_and(magnitude >= scalar(low, x.dtype), magnitude <= scalar(high, x.dtype))


_RANGE_CHECKS = (in_range, nonzero_in_range)


def require_in_range(x: tf.Tensor):
    """`x`'s items in the fast check's range (zero included), checked with the other range
    checks of the graph `x` was made in where that encloses the graph being built (see
    `require_range`); returns that graph."""
    require_range(in_range, x)
    return _home(x)


def require_range(check, x: tf.Tensor, of: tf.DType | None = None) -> None:
    """A pending range check (`check`: in_range, or nonzero_in_range for a divisor) of
    x's items: a scalar stacked with the graph's other scalars of its kind, an array's
    items joined with theirs at `flush`. Checked in the graph `x` was made in where that
    encloses the one being built (a branch, a loop body): its failure only regenerates
    with op-by-op checks, so it may run where Python would not have reached the operand,
    and there it joins that graph's other range checks (once, not in every branch)."""
    pending = active.get().pending_checks.setdefault(_home(x), [])
    if x.shape.rank == 0 and of is None:
        pending.append(((check, (x.dtype,)), (x,)))  # (as require_each keeps a scalar's)
    else:
        pending.append(_InRange(check, x, of))


def enclosing_graphs():
    """The graph being built, then each graph it is nested in (a branch's loop body, the
    function's graph): their checks run whenever it runs."""
    graph = tf.compat.v1.get_default_graph()
    while graph is not None:
        yield graph
        graph = getattr(graph, "outer_graph", None)


def _home(x: tf.Tensor):
    """The graph `x` was made in if it encloses the graph being built, else that one."""
    made_in = getattr(x, "graph", None)
    return next((g for g in enclosing_graphs() if g is made_in),
                tf.compat.v1.get_default_graph())


class _InRange:
    """A pending range check of an array's items (`check`: in_range, or nonzero_in_range
    for a divisor; in dtype `of`'s range, or the items' own): at `flush`, one check of
    all the items of each kind (see `items_by_range`)."""

    def __init__(self, check, items: tf.Tensor, of: tf.DType | None = None):
        self.check, self.items, self.of = check, items, of


def unflushed(tracer) -> bool:
    """Whether a nested graph of the trace (a library's callback janus does not end)
    left conditions unchecked: the trace must not be used."""
    return any(tracer.pending_checks.values())


def normal_or_zero(x: tf.Tensor) -> tf.Tensor:
    """Elementwise: not a subnormal float (which TF reads as zero); inf and nan pass.
    Read from the bits: TF's own float comparisons see a subnormal as zero."""
    ints, magnitude, smallest = FLOAT_BITS[x.dtype]
    bits = tf.bitwise.bitwise_and(tf.bitcast(x, ints), scalar(magnitude, ints))
    return tf.logical_or(tf.equal(bits, scalar(0, ints)), bits >= scalar(smallest, ints))


FLOAT_BITS = {  # dtype: (its bits as ints, the mask of all but the sign, the smallest normal)
    tf.float64: (tf.int64, 0x7FFFFFFFFFFFFFFF, 0x0010000000000000),
    tf.float32: (tf.int32, 0x7FFFFFFF, 0x00800000),
}


_CONSTANTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> its constants


def scalar(value, dtype: tf.DType) -> tf.Tensor:
    """The constant `value` of `dtype`, one per graph (checks compare with the same few
    constants many times: a new op each time made traces slow)."""
    return cached(value, dtype, lambda: tf.constant(value, dtype), "constant")


def cached(value, dtype: tf.DType, make, kind: str) -> tf.Tensor:
    """`make()`, one per graph being built, `kind` and value."""
    graph = tf.compat.v1.get_default_graph()
    cache = _CONSTANTS.get(graph)
    if cache is None:
        cache = _CONSTANTS[graph] = {}
    key = (kind, type(value), repr(value), dtype.name)  # (repr: -0.0 is not 0.0)
    tensor = cache.get(key)
    if tensor is None:
        tensor = cache[key] = make()
    return tensor
