"""Generalized control flow: what a tensor-valued `if`/`while` or a loop over a list of
varying length becomes once the plan says it must not be specialized.

    if <tensor>: ...              ->  tf.cond over the tensors the branches change
    while <tensor>: ...           ->  tf.while_loop over the tensors the body changes
    for x in <varying list>: ...  ->  tf.vectorized_map when iterations are independent,
                                      else tf.while_loop (first iteration peeled, lists
                                      appended to become TensorArrays)

Blocks run here must not touch the heap or stdout (those effects cannot be deferred per
iteration or per branch): such code stays specialized instead. A branch of a `tf.cond`
may update variables: their local copies (fallback/variables.py) are carried out of it
like the tensors it changes, the other branch handing back the values it had.
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import deferred_checks, identity, traced_gradients
from janus.graphgen.cond_heap import CondWrites, Retrace
from janus.graphgen.dead_ends import after_raising_ops
from janus.graphgen.loop_heap import lift, lift_to
from janus.graphgen.loop_values import (all_symbolic, carries, element, from_loop,
                                        same_kind, to_loop)
from janus.graphgen.values import Accumulator, DynamicList
from janus.tensors import is_tensor
from janus.transform.runtime import UNDEFINED


class _NotIndependent(Exception):
    pass


def _size(fn) -> int:
    """How much code a branch closure holds (its bytecode's length)."""
    code = getattr(fn, "__code__", None)
    return len(code.co_code) if code is not None else 0


class _Poison:
    """Stands for the previous iteration's value while testing independence."""

    def __getattr__(self, name):
        raise _NotIndependent()

    def __iter__(self):
        raise _NotIndependent()

    def __getitem__(self, key):
        raise _NotIndependent()


_POISON = _Poison()


class _Sink:
    """Stands for a list the loop grows while testing independence: takes the one item
    an iteration adds (`append`, `+= [x]`, `insert(0, x)`); reading the list (its
    length, items, truth) makes the iterations dependent."""

    def __init__(self):
        self.items: list = []
        self.modes: set = set()

    def append(self, value):
        self.items.append(value)
        self.modes.add("append")

    def insert(self, index, value):
        if type(index) is not int or index != 0:
            raise _NotIndependent()
        self.items.append(value)
        self.modes.add("prepend")

    def __iadd__(self, values):
        if type(values) is not list:
            raise _NotIndependent()
        for value in values:
            self.append(value)
        return self

    def __getattr__(self, name):
        raise _NotIndependent()

    def _read(self, *args):
        raise _NotIndependent()

    __len__ = __iter__ = __getitem__ = __bool__ = __contains__ = __eq__ = __ne__ = \
        __repr__ = __add__ = __radd__ = __mul__ = _read
    __hash__ = None
_placeholder = object()  # a Python value a branch of a generalized `if` left as it was


def _same(after, before) -> bool:
    """Whether a Python number (or None) came out of a branch as it went in."""
    return after is before or type(after) is type(before) and after == before


def _is_poison(value) -> bool:
    return any(leaf is _POISON for leaf in tf.nest.flatten(value))


def _contents(values, depth: int = 3):
    """What the lists/dicts among `values` hold (by identity), nested a few levels: a
    block traced once must not change them in place (Python would do so per iteration,
    or in one branch only)."""
    return [_walk(v, 0, depth) for v in values]


def _walk(value, level: int, depth: int):
    if level > depth:
        return None
    if type(value) in (list, tuple):
        return (id(value), tuple(_walk(v, level + 1, depth) if type(v) in (list, tuple, dict)
                                 else id(v) for v in value))
    if type(value) is dict:
        return (id(value), tuple((k, _walk(v, level + 1, depth)
                                  if type(v) in (list, tuple, dict) else id(v))
                                 for k, v in value.items()))
    return None


def _refuse_in_place(before, values, what: str, skip=()) -> None:
    after = _contents(values)
    for i, (b, a) in enumerate(zip(before, after)):
        if i not in skip and b is not None and a != b and a is not None and a[0] == b[0]:
            raise ConversionError(f"{what} changes a list or dict in place; only tensors can "
                                  "change inside it")


class GeneralControlFlow:
    """Mixed into the graph runtime (`self.tracer` is the active trace)."""

    def _run_block(self, block, get_state, initial, carried, what: str,
                   variables: bool = False, attributes: bool = False) -> tuple:
        """Run one branch or loop body of a generalized construct: no heap effects (nor
        variable updates unless `variables`, nor attribute writes unless `attributes`:
        the caller checks and carries those), and Python values other than the carried
        tensors come out unchanged."""
        tracer = self.tracer
        mark, writes, local = tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes
        contents = _contents(initial)
        block()
        self._unchanged_heap(None if attributes else mark,
                             tracer.shadow.writes if variables else writes, what, local)
        _refuse_in_place(contents, initial, what)
        state = get_state()
        for i, (before, after) in enumerate(zip(initial, state)):
            if i not in carried and before is not UNDEFINED and after is not before and \
                    not (isinstance(after, (int, float, str)) and after == before):
                raise ConversionError(f"{what} changes a Python value; only tensors can change "
                                      "inside it")
        return state

    def _while(self, site, first, test, body, get_state, set_state, names):
        """A `while` on a tensor condition as tf.while_loop over the tensors it changes."""
        initial = get_state()
        carried = [i for i, v in enumerate(initial) if all_symbolic(v)]

        def restore(values):
            state = list(initial)
            for i, v in zip(carried, values):
                state[i] = v
            set_state(tuple(state))

        def condition(*values):
            restore(values)
            return after_raising_ops(tf.cast(test(), tf.bool))

        def loop_body(*values):
            restore(values)
            state = self._run_block(body, get_state, initial, carried, "a generalized `while`")
            return after_raising_ops(tuple(tf.nest.map_structure(tf.convert_to_tensor, state[i])
                                         for i in carried))

        deferred_checks.unbounded_inside()
        results = tf.while_loop(condition, loop_body, tuple(initial[i] for i in carried))
        identity.built(self.tracer, results)
        restore(results)

    def _unchanged_heap(self, mark, writes, what, local_writes=None):
        tracer = self.tracer
        if mark is not None and tracer.ledger.mark() != mark or tracer.shadow.writes != writes:
            raise ConversionError(f"heap, variable or print side effects inside {what} "
                                  "are not generalized")
        if local_writes is not None and tracer.local_writes != local_writes:
            # traced once, it would happen once (or in both branches), not as Python does
            raise ConversionError(f"{what} changes a list, dict or object in place")

    def _cond(self, site, test, if_true, if_false, get_state, set_state, both):
        """A tensor-valued `if` as tf.cond. The branches may change tensors, bind names
        both branches bind (`both`: from nothing, or from a Python number or None when
        each branch leaves a tensor there, as `total = 0.0` ... `total += e * e` in both
        does: Python's value after the `if` is a tensor on either path) and update
        variables (those of the branch traced first: the one with more code); other
        Python values must come out unchanged (on both paths: then they stay Python)."""
        initial = get_state()
        loose = {i for i, value in enumerate(initial) if i in both and (
            value is None or type(value) in (int, float, bool))}
        carried = [i for i, value in enumerate(initial)
                   if all_symbolic(value) or (value is UNDEFINED and i in both) or i in loose]
        shadow = self.tracer.shadow
        before = dict(shadow.values)
        updated: dict = {}  # id(variable) -> variable: what the first branch updated
        traced = []
        kept: list = []  # per traced branch: the `loose` names it left as they were
        heap = CondWrites(self.tracer.ledger, self.ld_attr, "a generalized `if`")

        def branch(fn):
            def run():
                set_state(initial)
                shadow.values = dict(before)
                heap.start(first=not traced)
                try:
                    state = self._run_block(fn, get_state, initial, carried,
                                            "a generalized `if`", variables=True,
                                            attributes=True)
                    attributes = heap.outputs()
                    changed = {k: var for k, (var, value) in shadow.values.items()
                               if before.get(k, (None, None))[1] is not value}
                    if set(changed) - set(updated) and traced:
                        # (traced again, a tape's gradient would be gone: not retried)
                        raise ConversionError("both branches of a tensor-valued `if` update "
                                              "variables, not the same ones")
                    updated.update(changed)
                    traced.append(fn)
                    news = [shadow.current(var) for var in updated.values()]
                finally:
                    shadow.values = dict(before)
                values = [_placeholder if i in loose and _same(state[i], initial[i]) else
                          state[i] for i in carried]
                for i, v in zip(carried, values):
                    if v is not _placeholder and (v is UNDEFINED or not all_symbolic(v) and
                                                  not is_tensor(v)):
                        raise ConversionError(
                            "a generalized `if` changes a Python value; only tensors can "
                            "change inside it" if i in loose else "a branch of a "
                            "tensor-valued `if` leaves a variable that is not a tensor")
                kept.append(frozenset(i for i, v in zip(carried, values) if v is _placeholder))
                if kept[-1] != kept[0]:
                    raise ConversionError("a generalized `if` makes a Python value a tensor "
                                          "on one path only")
                return after_raising_ops(
                    [tf.zeros([], tf.int32) if v is _placeholder else
                     tf.nest.map_structure(tf.convert_to_tensor, v) for v in values] + news +
                    attributes)
            return run

        test = tf.cast(test, tf.bool)
        first, second = (if_false, if_true) if _size(if_false) > _size(if_true) else \
            (if_true, if_false)  # (tf.cond traces its true branch first)
        spent = traced_gradients.SPENT[0]
        try:
            results = tf.cond(test if first is if_true else tf.logical_not(test),
                              branch(first), branch(second))
        except Retrace:  # (the second wrote heap attributes the first did not: cond_heap)
            if traced_gradients.SPENT[0] != spent:  # (a tape's one gradient is taken)
                raise ConversionError(
                    "a branch of a tensor-valued `if` takes a non-persistent tape's "
                    "gradient, and the other writes attributes it does not: janus would "
                    "trace the branch again, and a tape gives one gradient") from None
            updated.clear()
            traced.clear()
            kept.clear()
            results = tf.cond(test if first is if_true else tf.logical_not(test),
                              branch(first), branch(second))
        identity.built(self.tracer, results)
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        state = list(initial)
        for i, value in zip(carried, results):
            state[i] = initial[i] if kept and i in kept[0] else value
        set_state(tuple(state))
        for var, value in zip(updated.values(), results[len(carried):]):
            shadow.set(var, value)
        heap.set(results[len(carried) + len(updated):])  # (graphgen/cond_heap.py)

    def _vectorized_for(self, items, body, get_state, set_state, after, carried, accumulated,
                        lengths, modes):
        """A loop whose iterations are independent (no value flows from one to the next,
        each adds one item to lists) runs batched over all items at once
        (`tf.vectorized_map`) instead of one iteration after another. Returns the loop's
        final state, or None when an iteration depends on the previous one."""
        tracer = self.tracer

        def one(item):
            state = list(after)
            for k in carried:
                state[k] = _POISON
            sinks = [_Sink() for _ in accumulated]
            for k, sink in zip(accumulated, sinks):
                state[k] = sink
            set_state(tuple(state))
            body(item)
            new = get_state()
            if any(_is_poison(new[k]) for k in carried) or any(
                    new[k] is not sink or len(sink.items) != 1 or len(sink.modes) != 1 or
                    modes[k] not in (None, *sink.modes)
                    for k, sink in zip(accumulated, sinks)):
                raise _NotIndependent()
            for k, sink in zip(accumulated, sinks):
                modes[k] = next(iter(sink.modes))
            return after_raising_ops(([to_loop(new[k]) for k in carried],
                                      [sink.items[0] for sink in sinks]))

        mark, writes = tracer.ledger.mark(), tracer.shadow.writes
        try:
            last, appended = tf.vectorized_map(one, items.stacked, fallback_to_while_loop=False)
        except Exception:  # noqa: BLE001 - not independent or not vectorizable: use while_loop
            return None
        if mark is not None and tracer.ledger.mark() != mark or tracer.shadow.writes != writes:
            return None
        state = list(after)
        for k, value in zip(carried, last):
            state[k] = from_loop(after[k], tf.nest.map_structure(lambda v: v[-1], value))
        for k, value in zip(accumulated, appended):
            old = after[k][:lengths[k]] if modes[k] == "append" else after[k][1:]
            state[k] = DynamicList(_grown(modes[k], value, old))
        return tuple(state)

    def _while_for(self, site, items, body, get_state, set_state, names):
        """`for x in <list of varying length>` as a tf.while_loop; first iteration peeled
        so the loop state has its tensor types (the list is guarded non-empty). Python
        numbers the loop changes are carried as fed numbers (graphgen/loop_heap.py `lift`);
        lists it grows by one item per iteration (`append`, `insert(0, x)`) become
        TensorArrays."""
        tracer = self.tracer
        what = "a loop over a list of varying length"
        n = items.length()
        initial = get_state()
        lengths = [len(v) if type(v) is list else None for v in initial]
        mark, writes = tracer.ledger.mark(), tracer.shadow.writes
        contents = _contents(initial)
        body(items[0])
        self._unchanged_heap(mark, writes, what)
        after = list(get_state())
        carried, accumulated, modes = [], [], {}
        for i, (before, value) in enumerate(zip(initial, after)):
            value = after[i] = lift(value, before)
            growth = _growth(contents[i], value, lengths[i])
            if carries(value) or _rebound_list(value, before, tracer):
                carried.append(i)
            elif growth is not False and id(value) not in tracer.copy_sources:
                accumulated.append(i)
                modes[i] = growth
            elif value is before or value is UNDEFINED:
                continue
            elif isinstance(value, (int, float, bool, str)) and value == before:
                continue
            else:
                raise ConversionError(f"loop variable `{names[i]}` changes a Python value in "
                                      f"{what}")
        lists = [id(after[k]) for k in carried if type(after[k]) is list]
        if len(set(lists)) != len(lists):
            raise ConversionError(f"two loop variables name one list in {what}")
        _refuse_in_place(contents, initial, what, skip=set(accumulated))
        if accumulated:
            batched = self._vectorized_for(items, body, get_state, set_state, after, carried,
                                           accumulated, lengths, modes)
            if batched is not None:
                set_state(batched)
                return
        arrays, kinds, olds = [], [], []
        for i in accumulated:
            new, old = (after[i][-1], after[i][:-1]) if modes[i] != "prepend" else \
                (after[i][0], after[i][1:])
            tensor, kind = element(new, what)
            if any(t.dtype != tensor.dtype or t.shape != tensor.shape or k is not kind
                   for t, k in (element(v, what) for v in old)):
                raise ConversionError(f"list `{names[i]}` in {what} holds items of different "
                                      "kinds or shapes")
            array = tf.TensorArray(tensor.dtype, size=n, element_shape=tensor.shape)
            arrays.append(array.write(0, tensor))
            kinds.append(kind)
            olds.append(old)
        templates = [after[k] for k in carried]
        accumulators: list = []

        def condition(i, values, arrays_):
            return i < n

        def loop_body(i, values, arrays_):
            state = list(after)
            for k, template, value in zip(carried, templates, values):
                state[k] = from_loop(template, value)
            accumulators[:] = [Accumulator(a, i, fronts=True, base=lengths[k])  # (F166)
                               for k, a in zip(accumulated, arrays_)]
            for k, acc in zip(accumulated, accumulators):
                state[k] = acc
            set_state(tuple(state))
            mark, writes, local = tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes
            body(items.item(i))
            self._unchanged_heap(mark, writes, what, local)
            new = get_state()
            for k, acc, kind in zip(accumulated, accumulators, kinds):
                if new[k] is not acc or acc.appends != 1 or acc.kinds != {kind} or \
                        modes[k] not in (None, acc.mode):
                    raise ConversionError(f"list `{names[k]}` must grow by one item of one "
                                          f"kind per iteration of {what}")
            for k, value in enumerate(new):
                if k not in carried and k not in accumulated and not _same(value, after[k]):
                    raise ConversionError(f"loop variable `{names[k]}` changes a Python value "
                                          f"in {what}")
            carried_out = [lift_to(new[k], template) for k, template in zip(carried, templates)]
            for k, template, value in zip(carried, templates, carried_out):
                if not same_kind(template, value):
                    raise ConversionError(f"loop variable `{names[k]}` changes type in {what}")
            return after_raising_ops(
                (i + 1, [to_loop(value) for value in carried_out],
                 [acc.array for acc in accumulators]))

        values = [to_loop(after[k]) for k in carried]
        try:
            _, values, arrays = deferred_checks.bounded_loop(
                condition, loop_body, (tf.constant(1), values, arrays))
        except (ValueError, TypeError) as error:  # (a value changing dtype or shape)
            raise ConversionError(f"{what} cannot be one tf.while_loop: {error}") from error
        identity.built(self.tracer, values)
        state = list(after)
        for k, template, value in zip(carried, templates, values):
            state[k] = from_loop(template, value)
        for k, array, kind, old, acc in zip(accumulated, arrays, kinds, olds, accumulators):
            state[k] = DynamicList(_grown(modes[k] or acc.mode, array.stack(), old), kind)
        set_state(tuple(state))


def _rebound_list(value, before, tracer) -> bool:
    """A name the loop binds to a new list of tensors each iteration (an RNN cell's
    `out, state = cell(x, state)`): carried as loop state like a tuple (a list the loop
    grows or changes in place is not this: that one object is the program's)."""
    return type(value) is list and value is not before and bool(value) and \
        all_symbolic(tuple(value)) and \
        id(value) not in tracer.copy_sources


def _growth(before, value, length):
    """How a loop's first iteration grew list `value` by one item: "append", "prepend"
    (`insert(0, x)`), None when it was empty (either), False when it did not."""
    if type(value) is not list or length is None or len(value) != length + 1 or \
            before is None:
        return False
    now = _contents([value])[0]
    if now[0] != before[0]:
        return False
    if not before[1]:
        return None
    return "append" if now[1][:-1] == before[1] else \
        "prepend" if now[1][1:] == before[1] else False


def _grown(mode, added, old: list):
    """A grown list's items as one tensor: `added` (in the order the loop added them)
    after the items it had, or reversed before them."""
    if mode == "prepend":
        added = tf.reverse(added, [0])
    if not old:
        return added
    try:
        prefix = tf.stack([element(v, "a loop")[0] for v in old])
        return tf.concat([added, prefix] if mode == "prepend" else [prefix, added], 0)
    except (TypeError, ValueError) as error:  # (items of other dtypes or shapes)
        raise ConversionError(f"a list a loop grows holds items of different dtypes or "
                              f"shapes: {error}") from error
