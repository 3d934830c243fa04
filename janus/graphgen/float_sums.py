"""numpy's and Python's float sums as graph ops, in their own order of additions.

Float addition is not associative, so a sum is exact only in the order its reference
adds. TF's `reduce_sum` has its own order; these build the reference's:

    np.add.reduce(a)   (a.sum(), np.sum(a), inside a.mean()/var()/std(); 1-D float32 or
                       float64) numpy 2's `pairwise_sum` (loops_utils.h.src) added to the
                       reduction's identity 0.0:
                           n < 8:        ((a0 + a1) + a2) + ...
                           n <= 128:     eight accumulators r[j] = a[j], r[j] += a[8i+j];
                                         ((r0+r1) + (r2+r3)) + ((r4+r5) + (r6+r7)); then the
                                         n % 8 last items one by one
                           n > 128:      sum(a[:m]) + sum(a[m:]), m = n // 2 rounded down
                                         to a multiple of 8
                       (checked against numpy 2.4 on every length 0..600 and others to 50001,
                       contiguous and strided). In the graph: each row of eight lanes and
                       the tail as one `Cumsum` (TF's scan adds along its axis one item
                       after another, from 0.0); for a length known only when it runs, a
                       length <= 128 is one block (a `tf.cond`), a longer one is split by a
                       tf.while_loop into the recursion's blocks level by level, all
                       blocks are summed at once (vectors of blocks), and a second loop
                       adds the blocks' sums back up the levels.
    sum(xs)            Python's: ((0 + x0) + x1) + ... one float64 add after another
                       (one `Cumsum`; CPython 3.11's `builtin_sum`), ints exactly.

Every float add is checked where TF's could differ (graphgen/exact_numbers.py): TF flushes
subnormal results to zero, numpy and Python keep them, so each result must be normal or an
exact zero; numpy also warns on an overflow (a sum of finite numbers that is not finite).
The checks are returned as one bool (`ok`), for the caller to `require`: a loop body here
is not a body janus ends, so nothing is `require`d inside one.
"""
from __future__ import annotations

import weakref

import tensorflow as tf

from janus.graphgen import checks, exact_numbers

BLOCK = 128  # numpy's PW_BLOCKSIZE
_LANES = 8  # its unrolling: eight accumulators


def checked_add(a: tf.Tensor, b: tf.Tensor, active=None, checked: bool = True):
    """(a + b, ok): ok where the sum is what IEEE addition without flushing gives (normal
    or an exact zero); `active` (bool, broadcast): where the add happens at all.
    Unchecked: ok is True (the caller knows no add can flush or overflow)."""
    total = a + b
    if not checked:
        return (total if active is None else tf.where(active, total, a)), _TRUE
    ok = tf.logical_and(checks.normal_or_zero(total),
                        tf.logical_or(tf.not_equal(total, tf.zeros([], total.dtype)),
                                      tf.equal(a, -b)))
    if active is not None:
        ok = tf.logical_or(ok, tf.logical_not(active))
        total = tf.where(active, total, a)
    return total, tf.reduce_all(ok)


_TRUE = True  # (an unchecked step's ok; tf.logical_and takes it)


def numpy_sum(x: tf.Tensor):
    """(np.add.reduce(x), ok) of a 1-D float tensor of any length (see the module
    docstring): ok also requires every item finite and the sum finite (where numpy would
    warn of an overflow, or adds infs). Where a trace checks x's items by range
    (exact_numbers.items_by_range) the adds are not checked one by one. Once per tensor
    and graph (`a.mean()` and `a.std()` sum `a` once)."""
    return _once("sum", x, lambda x: _numpy_sum(x, checked=not _by_range(x)))


def _by_range(x: tf.Tensor) -> bool:
    """Whether the trace checks x's items by range (once per tensor and graph)."""
    return _once("by_range", x, exact_numbers.items_by_range)


_DONE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> its results


def _once(kind: str, x: tf.Tensor, compute):
    graph = tf.compat.v1.get_default_graph()
    done = _DONE.setdefault(graph, {})
    key = (kind, x.ref())
    if key not in done:
        done[key] = compute(x)
    return done[key]


def _numpy_sum(x: tf.Tensor, checked: bool = True):
    length = x.shape[0]
    n = tf.shape(x, out_type=tf.int32)[0]
    one_block = (lambda: _one_block(x, n, checked)) if checked else \
        (lambda: (_short_sum(x, n), _TRUE))
    any_length = lambda: _any_length(x, n, checked)  # noqa: E731
    if length is not None:  # (known when the graph is built: no tf.cond)
        total, ok = one_block() if length <= BLOCK else any_length()
    else:
        total, ok = tf.cond(n <= BLOCK, one_block, any_length)
    # (the identity 0.0 first: a sum of -0.0s is 0.0; `x + 0.0` Grappler would drop)
    total = tf.where(tf.equal(total, tf.zeros([], x.dtype)), tf.zeros([], x.dtype), total)
    # (a sum with an inf or a nan among its items is not finite: the sum's check is theirs)
    finite = tf.math.is_finite(total)
    return total, (finite if ok is _TRUE else tf.logical_and(ok, finite))


def _one_block(x, n, checked):
    """numpy's sum of at most BLOCK items: the recursion's one leaf."""
    sums, ok = _block_sums(x, n, tf.zeros([1], tf.int32), tf.reshape(n, [1]), checked)
    return sums[0], tf.convert_to_tensor(ok)


def _short_sum(x, n):
    """numpy's sum of at most BLOCK items, unchecked, in few ops (a block of `_block_sums`
    alone): x read padded with +0.0 to BLOCK + 8 items; its whole rows of eight in the
    eight accumulators (rows past them +0.0), their tree, then the at most seven last
    items (+0.0s past the end) one by one. Shorter than eight: the accumulators are
    +0.0, and 0.0 + x0 is x0 but for the sign of a zero (see `_block_sums`)."""
    dtype = x.dtype
    values = tf.concat([x, tf.zeros([BLOCK + _LANES], dtype)], 0)[:BLOCK + _LANES]
    full = tf.bitwise.bitwise_and(n, -_LANES)  # (n // 8 * 8)
    rows = tf.where(tf.range(BLOCK, dtype=tf.int32) < full, values[:BLOCK],
                    tf.zeros([], dtype))
    r = tf.cumsum(tf.reshape(rows, [BLOCK // _LANES, _LANES]), axis=0)[-1]
    tree = tf.reshape(r, [2, 2, 2])  # ((r0+r1) + (r2+r3)) + ((r4+r5) + (r6+r7))
    for axis in (2, 1, 0):
        left, right = tf.unstack(tree, axis=axis)
        tree = left + right
    tail = tf.slice(values, tf.reshape(full, [1]), [_LANES - 1])
    return tf.cumsum(tf.concat([tf.reshape(tree, [1]), tail], 0))[-1]


def _any_length(x, n, checked):
    starts, lengths, splits, levels = _blocks(n)
    sums, ok = _block_sums(x, n, starts, lengths, checked)
    total, ok_up = _combine(sums, splits, levels, checked)
    return total, tf.logical_and(ok, ok_up)


def _blocks(n):
    """The recursion's leaves (starts, lengths: each at most BLOCK) in order, and per level
    of the recursion (a TensorArray) which of its segments split in two."""
    def more(starts, lengths, splits, level):
        return tf.reduce_any(lengths > BLOCK)

    def split_level(starts, lengths, splits, level):
        split = lengths > BLOCK
        first = lengths // (2 * _LANES) * _LANES  # (n // 2 - (n // 2) % 8)
        child_starts = tf.stack([starts, starts + first], 1)
        child_lengths = tf.stack([tf.where(split, first, lengths), lengths - first], 1)
        kept = tf.where(tf.reshape(tf.stack([tf.ones_like(split), split], 1), [-1]))[:, 0]
        return (tf.gather(tf.reshape(child_starts, [-1]), kept),
                tf.gather(tf.reshape(child_lengths, [-1]), kept),
                splits.write(level, split), level + 1)

    splits = tf.TensorArray(tf.bool, size=0, dynamic_size=True, infer_shape=False,
                            element_shape=tf.TensorShape([None]))
    starts, lengths, splits, levels = tf.while_loop(
        more, split_level, (tf.zeros([1], tf.int32), tf.reshape(n, [1]), splits,
                            tf.constant(0)),
        shape_invariants=(tf.TensorShape([None]), tf.TensorShape([None]),
                          tf.TensorShape(None), tf.TensorShape([])))
    return starts, lengths, splits, levels


def _block_sums(x, n, starts, lengths, checked=True):
    """numpy's pairwise_sum of each block (at most BLOCK items), all blocks at once.

    A block is read padded with +0.0 to BLOCK items, and the items past its end are added
    too: adding +0.0 leaves a sum unchanged but for the sign of a zero, and the sign of
    an intermediate zero never reaches the result (a zero added to a nonzero number is
    that number; an all-zero result is the identity's +0.0: `numpy_sum`)."""
    dtype = x.dtype
    padded = tf.concat([x, tf.zeros([1], dtype)], 0)  # (index n: a padding zero)
    offsets = tf.range(BLOCK + _LANES, dtype=tf.int32)  # (8 more: the tail's reads)
    index = starts[:, None] + offsets[None, :]
    values = tf.gather(padded, tf.where(offsets[None, :] < lengths[:, None], index, n))
    full = lengths // _LANES * _LANES  # (the items of whole rows of eight)
    lanes = tf.reshape(tf.where(offsets[None, :BLOCK] < full[:, None], values[:, :BLOCK],
                                tf.zeros([], dtype)), [-1, BLOCK // _LANES, _LANES])
    # (eight accumulators, row after row: TF's scan starts from 0.0, and 0.0 + a is a
    # for a normal or zero a but for the sign of a zero, which the result never shows)
    partial = tf.cumsum(lanes, axis=1)
    r = partial[:, -1]
    pairs, ok_pairs = checked_add(r[:, 0::2], r[:, 1::2], checked=checked)  # ((r0+r1) + ...
    quads, ok_quads = checked_add(pairs[:, 0::2], pairs[:, 1::2], checked=checked)
    tree, ok_tree = checked_add(quads[:, 0], quads[:, 1], checked=checked)
    short = lengths < _LANES  # n < 8 (only a whole array that short): one by one
    tail = tf.gather(values, full[:, None] +
                     tf.range(_LANES - 1, dtype=tf.int32)[None, :], batch_dims=1)
    head = tf.where(short, values[:, 0], tree)
    rest = tf.where(short[:, None], values[:, 1:_LANES], tail)
    items = tf.concat([head[:, None], rest], 1)
    sequence = tf.cumsum(items, axis=1)
    if not checked:
        return sequence[:, -1], _TRUE
    rows_ok = _in_order_ok(partial, lanes)
    seq_ok = _in_order_ok(sequence, items)
    big_ok = tf.reduce_all(tf.stack([rows_ok, ok_pairs, ok_quads, ok_tree]))
    ok = tf.logical_and(seq_ok, tf.logical_or(big_ok, tf.reduce_all(short)))
    return sequence[:, -1], ok


def _in_order_ok(partial, items):
    """Whether the running sums `partial` (along axis 1: partial[i] = partial[i-1] +
    items[i]) are what IEEE addition without flushing gives (see `checked_add`)."""
    after, before, added = partial[:, 1:], partial[:, :-1], items[:, 1:]
    return tf.reduce_all(tf.logical_and(
        checks.normal_or_zero(after),
        tf.logical_or(tf.not_equal(after, tf.zeros([], after.dtype)),
                      tf.equal(before, -added))))


def _combine(sums, splits, levels, checked=True):
    """The blocks' sums added back up the recursion's levels: a segment that split is
    the sum of its two children's, left + right."""
    def more(level, values, ok):
        return level > 0

    def up(level, values, ok):
        split = splits.read(level - 1)
        counts = tf.where(split, 2, 1)
        first = tf.cumsum(counts, exclusive=True)
        left = tf.gather(values, first)
        right = tf.gather(values, tf.minimum(first + 1, tf.size(values) - 1))
        total, ok_add = checked_add(left, right, split, checked)
        return level - 1, total, tf.logical_and(ok, ok_add)

    _, values, ok = tf.while_loop(
        more, up, (levels, sums, tf.constant(True)),
        shape_invariants=(tf.TensorShape([]), tf.TensorShape([None]), tf.TensorShape([])))
    return values[0], ok


def python_float_sum(values: tf.Tensor, start: float = 0.0, checked: bool = True):
    """(sum(xs, start), ok) of Python floats (a float64 [n] tensor): CPython 3.11's
    `builtin_sum`, start + x0 (an int start converted to float: 0 + x0 is 0.0 + x0), then
    each item added in order: one `Cumsum` of [start, x0, x1, ...] (TF's scan adds from
    0.0: the same sums but for the sign of a zero, and Python's result is -0.0 only when
    every addend is). ok: every add's result normal or an exact zero (inf and nan are
    Python's too); unchecked: True (every addend checked by range: no add can flush or
    overflow)."""
    start = tf.cast(start, tf.float64) if tf.is_tensor(start) else \
        tf.constant(start, tf.float64)  # (tf.cast would make a Python float a float32)
    addends = tf.concat([tf.reshape(start, [1]), values], 0)
    sums = tf.cumsum(addends)
    total = sums[-1]
    negative_zero = tf.reduce_all(tf.equal(tf.bitcast(addends, tf.int64),
                                           tf.constant(-2 ** 63, tf.int64)))
    total = tf.where(negative_zero, tf.constant(-0.0, tf.float64), total)
    return total, (_in_order_ok(sums[None], addends[None]) if checked else _TRUE)


def python_int_sum(values: tf.Tensor):
    """(sum(xs), ok) of Python ints (an int64 [n] tensor, n < 2**31): exact when the sum
    fits int64 (int64 adds wrap, so any order gives it then); ok: it fits (summed as
    high and low 32-bit halves, which cannot overflow)."""
    values = tf.cast(values, tf.int64)
    total = tf.reduce_sum(values)
    high = tf.reduce_sum(tf.bitwise.right_shift(values, 32))
    low = tf.reduce_sum(tf.bitwise.bitwise_and(values, 0xFFFFFFFF))
    top = high + tf.bitwise.right_shift(low, 32)
    ok = tf.logical_and(top >= -2 ** 31, top < 2 ** 31)
    return total, tf.logical_and(ok, tf.shape(values, out_type=tf.int64)[0] < 2 ** 31)


# -- numpy's _methods._mean / _var / _std on a 1-D float array ---------------------------

def numpy_mean(x: tf.Tensor):
    """(x.mean(), ok): numpy's `_mean`, `dtype.type(sum / n)` with n a numpy intp, so the
    division is float64's, rounded to x's dtype. ok: n > 0 (numpy warns and gives nan)
    and no subnormal quotient (TF flushes it)."""
    return _once("mean", x, _numpy_mean)


def _numpy_mean(x: tf.Tensor):
    total, ok = numpy_sum(x)
    n = tf.shape(x, out_type=tf.int64)[0]
    # (items by range: a nonzero sum is a multiple of 2**-83 (float64: 2**-552), and over
    # n < 2**31 it stays normal; nothing to check of the quotient)
    return _divide(total, n, ok, tf.greater(n, 0), checked=not _by_range(x))


def numpy_var(x: tf.Tensor, ddof: int = 0, root: bool = False):
    """(x.var(ddof=ddof), ok), or x.std() with `root`: numpy's `_var`: the mean as
    `numpy_mean` gives it, d = x - mean, d * d, their pairwise sum / (n - ddof) (float64's
    division), then (std) the square root in x's dtype. ok: n - ddof > 0 (numpy warns),
    every step normal or an exact zero, nothing overflows."""
    mean, ok_mean = numpy_mean(x)
    deviation = x - mean
    square = deviation * deviation
    if exact_numbers.items_by_range(deviation):
        # (x's items in range and a normal mean: no d is subnormal; d in range: each d * d
        # is normal and finite, and sums of squares never cancel: not one to check)
        total, ok_sum = _numpy_sum(square, checked=False)
        steps_ok = True
    else:
        zero = tf.zeros([], x.dtype)
        steps_ok = tf.reduce_all(tf.logical_and(
            tf.logical_and(checks.normal_or_zero(deviation),
                           checks.normal_or_zero(square)),
            tf.logical_and(tf.logical_or(tf.not_equal(deviation, zero), tf.equal(x, mean)),
                           tf.logical_or(tf.not_equal(square, zero),
                                         tf.equal(deviation, zero)))))
        total, ok_sum = numpy_sum(square)  # (an overflowed square: not finite, refused)
    n = tf.shape(x, out_type=tf.int64)[0] - ddof
    result, ok = _divide(total, n, tf.logical_and(tf.logical_and(ok_mean, steps_ok), ok_sum),
                         tf.greater(n, 0))
    if root:  # (float64's sqrt rounded to float32 is float32's: 53 >= 2 * 24 + 2)
        result = tf.cast(tf.sqrt(tf.cast(result, tf.float64)), x.dtype)
    return result, ok


def _divide(total, n, ok, n_ok, checked: bool = True):
    """`total.dtype.type(total / n)` of numpy scalars (a float and an intp), checked
    (unless the caller knows the quotient normal or an exact zero)."""
    count = tf.raw_ops.PlaceholderWithDefault(  # (Grappler must not make it 1/n: a constant)
        input=tf.cast(n, tf.float64), shape=[])
    quotient = tf.cast(total, tf.float64) / count
    result = tf.cast(quotient, total.dtype)
    if not checked:
        return result, tf.logical_and(ok, n_ok)
    zero = tf.zeros([], total.dtype)
    exact = tf.logical_and(checks.normal_or_zero(result),
                           tf.logical_or(tf.not_equal(result, zero), tf.equal(total, zero)))
    return result, tf.logical_and(tf.logical_and(ok, n_ok), exact)
