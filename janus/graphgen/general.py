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
from janus.graphgen.dead_ends import after_raising_ops
from janus.graphgen.tracer import is_symbolic
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
_placeholder = object()  # a Python value a branch of a generalized `if` left as it was


def _same(after, before) -> bool:
    """Whether a Python number (or None) came out of a branch as it went in."""
    return after is before or type(after) is type(before) and after == before


def _is_poison(value) -> bool:
    return any(leaf is _POISON for leaf in tf.nest.flatten(value))


def all_symbolic(value) -> bool:
    """A tensor, or a tuple/list/dict nest whose leaves are all tensors."""
    if isinstance(value, (list, tuple, dict)) and not value:
        return False
    leaves = tf.nest.flatten(value) if isinstance(value, (tuple, dict)) else [value]
    return all(is_symbolic(leaf) for leaf in leaves)



def _contents(values, depth: int = 3):
    """What the lists/dicts among `values` hold (by identity), nested a few levels: a
    block traced once must not change them in place (Python would do so per iteration,
    or in one branch only)."""
    def walk(value, level):
        if level > depth:
            return None
        if type(value) in (list, tuple):
            return (id(value), tuple(walk(v, level + 1) if type(v) in (list, tuple, dict)
                                     else id(v) for v in value))
        if type(value) is dict:
            return (id(value), tuple((k, walk(v, level + 1) if type(v) in (list, tuple, dict)
                                      else id(v)) for k, v in value.items()))
        return None
    return [walk(v, 0) for v in values]


def _refuse_in_place(before, values, what: str, skip=()) -> None:
    after = _contents(values)
    for i, (b, a) in enumerate(zip(before, after)):
        if i not in skip and b is not None and a != b and a is not None and a[0] == b[0]:
            raise ConversionError(f"{what} changes a list or dict in place; only tensors can "
                                  "change inside it")


class GeneralControlFlow:
    """Mixed into the graph runtime (`self.tracer` is the active trace)."""

    def _run_block(self, block, get_state, initial, carried, what: str,
                   variables: bool = False) -> tuple:
        """Run one branch or loop body of a generalized construct: no heap effects (nor
        variable updates unless `variables`), and Python values other than the carried
        tensors come out unchanged."""
        tracer = self.tracer
        mark, writes, local = tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes
        contents = _contents(initial)
        block()
        self._unchanged_heap(mark, tracer.shadow.writes if variables else writes, what, local)
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

        results = tf.while_loop(condition, loop_body, tuple(initial[i] for i in carried))
        restore(results)

    def _unchanged_heap(self, mark, writes, what, local_writes=None):
        tracer = self.tracer
        if tracer.ledger.mark() != mark or tracer.shadow.writes != writes:
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

        def branch(fn):
            def run():
                set_state(initial)
                shadow.values = dict(before)
                try:
                    state = self._run_block(fn, get_state, initial, carried,
                                            "a generalized `if`", variables=True)
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
                     tf.nest.map_structure(tf.convert_to_tensor, v) for v in values] + news)
            return run

        test = tf.cast(test, tf.bool)
        if _size(if_false) > _size(if_true):  # (tf.cond traces its true branch first)
            results = tf.cond(tf.logical_not(test), branch(if_false), branch(if_true))
        else:
            results = tf.cond(test, branch(if_true), branch(if_false))
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        state = list(initial)
        for i, value in zip(carried, results):
            state[i] = initial[i] if kept and i in kept[0] else value
        set_state(tuple(state))
        for var, value in zip(updated.values(), results[len(carried):]):
            shadow.set(var, value)

    def _vectorized_for(self, items, body, get_state, set_state, after, carried, accumulated,
                        lengths):
        """A loop whose iterations are independent (no value flows from one to the next,
        each appends one item to lists) runs batched over all items at once
        (`tf.vectorized_map`) instead of one iteration after another. Returns the loop's
        final state, or None when an iteration depends on the previous one."""
        tracer = self.tracer

        def one(item):
            state = list(after)
            for k in carried:
                state[k] = _POISON
            for k in accumulated:
                state[k] = []
            set_state(tuple(state))
            body(item)
            new = get_state()
            if any(_is_poison(new[k]) for k in carried) or \
                    any(len(new[k]) != 1 for k in accumulated):
                raise _NotIndependent()
            return after_raising_ops(([new[k] for k in carried],
                                      [new[k][0] for k in accumulated]))

        mark, writes = tracer.ledger.mark(), tracer.shadow.writes
        try:
            last, appended = tf.vectorized_map(one, items.stacked, fallback_to_while_loop=False)
        except Exception:  # noqa: BLE001 - not independent or not vectorizable: use while_loop
            return None
        if tracer.ledger.mark() != mark or tracer.shadow.writes != writes:
            return None
        state = list(after)
        for k, value in zip(carried, last):
            state[k] = tf.nest.map_structure(lambda v: v[-1], value)
        for k, value in zip(accumulated, appended):
            prefix = after[k][:lengths[k]]
            stacked = tf.concat([tf.stack(prefix), value], 0) if prefix else value
            state[k] = DynamicList(stacked)
        return tuple(state)

    def _while_for(self, site, items, body, get_state, set_state, names):
        """`for x in <list of varying length>` as a tf.while_loop; first iteration peeled
        so the loop state has its tensor types (the list is guarded non-empty)."""
        tracer = self.tracer
        n = items.length()
        initial = get_state()
        lengths = [len(v) if type(v) is list else None for v in initial]
        mark, writes = tracer.ledger.mark(), tracer.shadow.writes
        contents = _contents(initial)
        body(items[0])
        self._unchanged_heap(mark, writes, "a loop over a list of varying length")
        after = list(get_state())
        carried, accumulated = [], []
        for i, (before, value) in enumerate(zip(initial, after)):
            if all_symbolic(value):
                carried.append(i)
            elif type(value) is list and lengths[i] is not None and len(value) == lengths[i] + 1 \
                    and is_tensor(value[-1]) and id(value) not in tracer.copy_sources:
                accumulated.append(i)
            elif value is before or value is UNDEFINED:
                continue
            elif isinstance(value, (int, float, bool, str)) and value == before:
                continue
            else:
                raise ConversionError(f"loop variable `{names[i]}` changes a Python value in a "
                                      "loop over a list of varying length")
        _refuse_in_place(contents, initial, "a loop over a list of varying length",
                         skip=set(accumulated))
        if accumulated:
            batched = self._vectorized_for(items, body, get_state, set_state, after, carried,
                                           accumulated, lengths)
            if batched is not None:
                set_state(batched)
                return
        arrays = []
        for i in accumulated:
            elements = after[i]
            array = tf.TensorArray(elements[-1].dtype, size=n + lengths[i],
                                   element_shape=elements[-1].shape)
            for j, item in enumerate(elements):
                array = array.write(j, item)
            arrays.append(array)

        def condition(i, values, arrays_):
            return i < n

        def loop_body(i, values, arrays_):
            state = list(after)
            for k, value in zip(carried, values):
                state[k] = value
            accumulators = [Accumulator(a, lengths[k] + i) for k, a in zip(accumulated, arrays_)]
            for k, acc in zip(accumulated, accumulators):
                state[k] = acc
            set_state(tuple(state))
            mark, writes, local = tracer.ledger.mark(), tracer.shadow.writes, tracer.local_writes
            body(items.item(i))
            self._unchanged_heap(mark, writes, "a loop over a list of varying length", local)
            new = get_state()
            for k, acc in zip(accumulated, accumulators):
                if new[k] is not acc or acc.appends != 1:
                    raise ConversionError(f"list `{names[k]}` must grow by one item per "
                                          "iteration of a loop over a list of varying length")
            return after_raising_ops(
                (i + 1, [tf.nest.map_structure(tf.convert_to_tensor, new[k]) for k in carried],
                 [acc.array for acc in accumulators]))

        values = [after[k] for k in carried]
        _, values, arrays = tf.while_loop(condition, loop_body, (tf.constant(1), values, arrays))
        state = list(after)
        for k, value in zip(carried, values):
            state[k] = value
        for k, array in zip(accumulated, arrays):
            state[k] = DynamicList(array.stack())
        set_state(tuple(state))
