"""Lists of Python numbers whose length varies from call to call (an edge list of
`(src, dst)` pairs, token ids, per-example weights): one tensor fed on every call, not a
guard on each item and a graph per length.

    edges = [(0, 1), (1, 2), (2, 0)]  guard: a non-empty list of pairs of ints (int32 range)
                                      feed:  an int64 [n, 2] tensor
                                      trace: DynamicList((col0, col1), kind=(int, int))
    tf.constant(edges, tf.int32)   ->  tf.cast(tf.stack([col0, col1], 1), tf.int32)
    len(edges)                     ->  the fed length (a Python int known at run time)
    for a, b in edges:             ->  a tf.while_loop, `a` and `b` fed ints

A list of numbers of a fixed length is fed whole the same way (F388) when its items are
fed (their values differ: the role `TABLE[*]` fed), if it is longer than `STACK_MIN`, or
whatever its items when it is longer than `janus.config.max_list_items`:

    TABLE = [0.3, 0.9, ...]  (2M floats)   guard: a list of floats; feed: float64 [n]
    tf.constant(TABLE)                     ->  the fed tensor as float32 (as TF converts)
    for v in TABLE: acc += v * w           ->  a tf.while_loop over the fed tensor

Should that trace fail (the list unpacked, sorted, written...), the list is read item by
item (`Plan.itemwise_lists`), each item fed or guarded; past `max_list_items` such a list
makes no graph at all (`refuse_itemwise`: generation would grow with the list, minutes and
gigabytes for a big table), and the line runs in Python.

A layout is `(kind, width)`: every item a `kind` (int, float or bool; exactly, a bool is no
int here), or a tuple of `width` of them. Anything else done with such a list (sorting it,
`in`, summing it in Python, handing it to numpy) fails the trace and the plan retreats to
guarding the list item by item.
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import fed_floats
from janus.graphgen.exact_numbers import FED_INT_BOUND
from janus.graphgen.values import DynamicList, default_float

KINDS = {"int": int, "float": float, "bool": bool}
_FED_DTYPES = {int: "int64", float: "float64", bool: "bool"}
_INT32 = (-2 ** 31, 2 ** 31 - 1)
MAX_WIDTH = 16


def layout_of_description(items: tuple):
    """The layout of a list from the profiler's description of its items
    (`describe_value`: `("int", 3)`, `("tuple", 2, (("int", 0), ("int", 1)))`), or None."""
    layouts = {_item_layout(d) for d in items}
    if len(layouts) != 1:
        return None
    return next(iter(layouts))


def _item_layout(description):
    if description[0] in KINDS:
        return (description[0], None)
    if description[0] == "tuple" and 1 <= description[1] <= MAX_WIDTH:
        kinds = {d[0] for d in description[2]}
        if len(kinds) == 1 and len(description[2]) == description[1]:
            kind = next(iter(kinds))
            return (kind, description[1]) if kind in KINDS else None
    return None


def layout_of(value) -> tuple | None:
    """The layout `value` (a list) has, or None (empty, mixed, not numbers)."""
    if type(value) is not list or not value:
        return None
    first = value[0]
    if type(first) is tuple:
        if not 1 <= len(first) <= MAX_WIDTH:
            return None
        layout = (type(first[0]).__name__, len(first))
    else:
        layout = (type(first).__name__, None)
    return layout if layout[0] in KINDS and fits(value, layout) else None


def fits(value, layout: tuple) -> bool:
    """The guard's test: `value` is a non-empty list of `layout`'s items (ints in int32:
    `tf.constant` of them is int32, as the graph's is)."""
    if type(value) is not list or not value:
        return False
    kind, width = KINDS[layout[0]], layout[1]
    if width is None:
        items = value
    else:
        for item in value:
            if type(item) is not tuple or len(item) != width:
                return False
        items = [x for item in value for x in item]
    for x in items:
        if type(x) is not kind:
            return False
    if kind is int:
        return _INT32[0] <= min(items) and max(items) <= _INT32[1]
    return True


STACK_MIN = 16
"""A list of fed numbers longer than this is fed whole (shorter ones item by item: a few
scalars, read as Python numbers, serve more code than a stacked tensor does)."""


def fed_whole(value, items_fed: bool, limit: int) -> tuple | None:
    """The layout a heap list of numbers (its length not varying) is fed whole as, or None
    (read item by item): its items fed and more than `STACK_MIN` of them, or more than
    `limit` (janus.config.max_list_items) of any values."""
    if type(value) is not list or len(value) <= STACK_MIN or \
            not items_fed and len(value) <= limit:
        return None
    return layout_of(value)


def refuse_itemwise(value: list, expr: str, limit: int) -> None:
    """Refuse (ConversionError) to read a list of more than `limit` numbers (or of tuples or
    lists of numbers) item by item: every item a guard or a fed input, the trace's time and
    memory grow with the list."""
    if len(value) <= limit:
        return
    count = 0
    for item in value:
        if type(item) in (list, tuple):
            if not all(_is_number(x) for x in item):
                return
            count += len(item)
        elif _is_number(item):
            count += 1
        else:
            return
    if count > limit:
        raise ConversionError(
            f"reads {expr}, a list of {len(value)} Python numbers ({count} in all), item by "
            f"item: past janus.config.max_list_items ({limit}) janus makes no graph of it "
            "(the trace would grow with the list; fed whole, as one tensor, it failed or "
            "its items are not all of one kind)")


def _is_number(value) -> bool:
    return type(value) in (int, float, bool) or isinstance(value, (np.integer, np.floating))


def spec(layout: tuple) -> tuple:
    """(dtype, shape) of the tensor a list of `layout` is fed as."""
    dtype = _FED_DTYPES[KINDS[layout[0]]]
    return (dtype, (None,) if layout[1] is None else (None, layout[1]))


def feed(value: list, dtype: str) -> tf.Tensor:
    """The fed tensor of a list that passed its guard (converted by TF straight from the
    list: a numpy array first took twice as long for a big list)."""
    return tf.constant(value, dtype)


def stand_in(fed: tf.Tensor, layout: tuple) -> DynamicList:
    """The trace's stand-in for the list: its columns, items read as fed numbers."""
    kind, width = KINDS[layout[0]], layout[1]
    if kind is float:
        fed_floats.fed_float(fed)  # (normal or zero, as Python sees it: fed_floats.py)
    if width is None:
        return DynamicList(fed, kind, bound=FED_INT_BOUND)
    columns = tuple(fed[:, j] for j in range(width))
    return DynamicList(columns, (kind,) * width, bound=FED_INT_BOUND)


def constant(items: DynamicList, dtype=None) -> tf.Tensor:
    """`tf.constant(items, dtype)` / `tf.convert_to_tensor(items, dtype)` of a list of
    numbers: the dtype TF picks (int32, float32, bool) or the one asked for, the values
    eager TF's conversion gives; a float beyond float32 with no dtype asked fails the graph
    (TF raises there: the call reruns plainly); a float or int as a bool, a float as an
    int: TypeError, as eager TF raises (a dtype hint then falls back to TF's own dtype)."""
    kinds = items.kind if isinstance(items.kind, tuple) else (items.kind,)
    if len(set(kinds)) != 1 or kinds[0] not in _FED_DTYPES:
        raise ConversionError("tf.constant of a list of varying length of mixed numbers")
    kind = kinds[0]
    columns = items.stacked
    values = tf.stack(columns, axis=1) if isinstance(columns, tuple) else columns
    want = None if dtype is None else tf.as_dtype(dtype)
    if want is None:
        return {bool: values, int: tf.cast(values, tf.int32),  # (the guard: within int32)
                float: values}[kind] if kind is not float else default_float(values)
    if want == tf.bool and kind is not bool or want.is_integer and kind is float:
        raise TypeError(f"Cannot convert a list of Python {kind.__name__}s to EagerTensor "
                        f"of dtype {want.name}")
    if want in _CONVERTS[kind]:
        return tf.cast(values, want)
    raise ConversionError(f"tf.constant of a list of Python {kind.__name__}s as {want.name}")


_CONVERTS = {  # dtypes a cast converts such a list to as eager TF does
    int: (tf.int32, tf.int64, tf.float32, tf.float64),
    float: (tf.float32, tf.float64),
    bool: (tf.bool, tf.int32, tf.float32)}


def _convert(items: DynamicList, dtype=None, name=None, as_ref=False):
    """A list of numbers handed to a TF op (`tf.gather(h, ids)`, `tf.reduce_sum(ws)`)."""
    if items.kind is None:
        return NotImplemented  # (a list of tensors: TF refuses it as before)
    return constant(items, dtype)


tf.register_tensor_conversion_function(DynamicList, _convert)
