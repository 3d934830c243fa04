"""A loop that breaks on a tensor as one `tf.while_loop` that stops on the test
(a `for` over a range, a list or a tensor; a `while` on its own test as well).

    for t in range(n):                 i, stop = 1, <exit test of iteration 0>
        h = step(h)                    while i < n and not stop:
        if <tensor test>:      ->          h_at_exit = step(h)          (the body up to
            break                          stop = <tensor test>          the test)
        out.append(h)                      out[count] = h               (the rest of the
                                           count += 0 if stop else 1     body, speculated)
                                           h = h_at_exit if stop else h_after
                                       out = stacked[:count]

The rest of the body after the test runs in every iteration (traced once): where the
test says stop, what it computed is discarded (each tensor the loop carries takes its
value at the test, an appended item is not counted). It must not print, update
variables or change lists and dicts of the heap; attributes of heap objects it writes
are carried as loop state (graphgen/loop_heap.py), as are Python numbers it changes
and the positions of numpy draws it makes (graphgen/loop_draws.py). The loop's first
iteration is peeled so the carried values have their types. A name the rest of the body
rebinds to a value of another type, that code after the loop reads, fails the trace
(janus keeps the loop unrolled). Used once the exit test's in-graph guard has
failed (`plan.general_branches`), and for loops over lists of varying length.

With several exit tests (up to 4, each `if <test>: break` at the body's top level) the
iteration stops where any says so, each carried tensor taking its value at the first
that did; an exit test may be an `and`/`or`/`not` whose later operands run in a
`tf.cond` branch only where Python would run them (`either`/`both`/`negate`, from
transform/exit_tests.py).
"""
from __future__ import annotations

import tensorflow as tf

from janus.errors import ConversionError
from janus.graphgen import deferred_checks, identity
from janus.graphgen.loop_bounds import CarriedInts, start
from janus.graphgen.connectivity import last_op_id, speculative
from janus.graphgen.dead_ends import after_raising_ops
from janus.graphgen.general import _contents, _refuse_in_place
from janus.graphgen.host_arrays import HostArray
from janus.graphgen.loop_draws import LoopDraws, snapshot
from janus.graphgen.loop_gradients import LoopLists
from janus.graphgen.loop_heap import CarriedAttributes, carried_as, lift, lift_to
from janus.graphgen.loop_values import (NOT_CARRIED, SCALARS, carries, choose, element,
                                        from_loop, same_kind, to_loop)
from janus.graphgen.tensor_arrays import is_array
from janus.graphgen.value_kinds import is_symbolic
from janus.graphgen.values import (Accumulator, DynamicList, GraphValueInPython,
                                   MixedBool, SymbolicScalar)
from janus.tensors import is_tensor
from janus.transform.exit_tests import exit_sites
from janus.transform.runtime import UNDEFINED

_WHAT = "a loop that stops on a tensor test (`while <tensor>:`, `if <tensor>: break`)"


class Exit:
    """The exit tests of one iteration of the loop being built: each one's condition and
    the loop's state when it ran (how many items each list had then), in program order.
    The iteration stops where any says so, with the state at the first that did."""

    def __init__(self, get_state, tests: int = 1, ledger=None, tracer=None):
        self.get_state = get_state
        self.tests = tests
        self.ledger = ledger
        self.tracer = tracer
        self.counts: list = []  # the numpy draw streams' counts at each (loop_draws.py)
        self.recorded: list = []  # (condition, state, lengths) per exit test that ran
        self.heaps: list = []  # the ledger's attributes at each (graphgen/loop_heap.py)
        self.tested_at = None  # the graph's last op id at its first exit test

    def record(self, value) -> bool:
        """Note the test's value; the body goes on (returns False: no `break`)."""
        if len(self.recorded) >= self.tests:
            raise ConversionError("the exit test of a loop ran twice in one iteration")
        state = self.get_state()
        condition = _condition(_predicate(value))
        if not self.recorded:
            self.tested_at = last_op_id(tf.compat.v1.get_default_graph())
        self.recorded.append((condition, state, [
            len(v) if type(v) is list else v.appends if isinstance(v, Accumulator) else None
            for v in state]))
        self.heaps.append(dict(self.ledger.attrs) if self.ledger is not None else {})
        self.counts.append(snapshot(self.tracer) if self.tracer is not None else {})
        return False

    def extend(self, attributes: CarriedAttributes, before: tuple) -> None:
        """Each exit test's state with the carried attributes' values then (`before`'s,
        the iteration's first values, where it had not written them yet)."""
        recorded = []
        for (condition, state, lengths), heap in zip(self.recorded, self.heaps):
            values = attributes.at(heap, before)
            recorded.append((condition, tuple(state) + values, lengths + [None] * len(values)))
        self.recorded = recorded

    @property
    def condition(self) -> tf.Tensor:
        """Whether the iteration stopped (at any of its exit tests)."""
        conditions = [c for c, _, _ in self.recorded]
        if not conditions:  # (a `while` without exit tests: graphgen/general_while.py)
            return tf.constant(False)
        return conditions[0] if len(conditions) == 1 else tf.reduce_any(tf.stack(conditions))

    def lengths(self, k: int) -> list:
        return [lengths[k] for _, _, lengths in self.recorded]

    def select(self, k: int, after, name: str, live):
        """Loop variable `k`'s value after the iteration: at the first test that stopped."""
        for condition, state, _ in reversed(self.recorded):
            after = _select(condition, state[k], after, name, live)
        return after

    def grown(self, k: int, base: int = 0):
        """How many items list `k` gained in the iteration (counted up to where it stopped)."""
        count = 1
        for condition, _, lengths in reversed(self.recorded):
            count = choose(condition, lengths[k] - base, count)
        return count


class Operand:
    """An operand of an `and`/`or`/`not` exit test (transform/exit_tests.py) while its
    loop is built: its value goes to `either`/`both`/`negate` as a predicate, unguarded."""

    @staticmethod
    def record(value):
        return _predicate(value)


_OPERAND = Operand()


class LoopResult(DynamicList):
    """A list the loop grew: its length is known only when the graph runs."""

    _error = GraphValueInPython


class LoopItems:
    """What a generalized `for` iterates: its length and its i-th item (i a tensor); for
    a `while`, its test instead (`test()`: the condition, read from the loop's state)."""

    def __init__(self, length, item, test=None):
        self.length, self.item, self.test = length, item, test


def _predicate(value):
    """A test's value: a bool tensor if it is symbolic (or stands for one), else as it is."""
    if isinstance(value, SCALARS + (MixedBool,)):
        value = value.tensor
    return tf.cast(value, tf.bool) if is_symbolic(value) else value


def _condition(predicate) -> tf.Tensor:
    """`_predicate`'s result as a scalar bool tensor (a Python value: a constant)."""
    if not is_symbolic(predicate):
        return tf.constant(bool(predicate))
    if predicate.shape.rank not in (0, None):  # (one element: its truth, as in Python)
        if predicate.shape.is_fully_defined() and predicate.shape.num_elements() == 1:
            return tf.reshape(predicate, [])
        raise ConversionError("the truth value of a tensor of more than one element (or of "
                              "a number of them known only when the graph runs)")
    return predicate


def loop_items(iterable) -> LoopItems:
    """The items of `range(...)` (Python ints: each item a fed int), of a list whose length
    varies, of a tensor, or of a Python list/tuple of same-shaped tensors."""
    if type(iterable) is range:
        start, step = iterable.start, iterable.step
        bound = max(abs(start), abs(iterable.stop)) + abs(step)  # (exact_numbers.py)
        def item(i):
            i = tf.cast(i, tf.int64)
            i = i * step if step != 1 else i
            return SymbolicScalar(start + i if start else i, int, bound=bound)
        return LoopItems(len(iterable), item)
    if isinstance(iterable, DynamicList):
        return LoopItems(iterable.length(), iterable.item)
    if is_symbolic(iterable) and iterable.shape.rank:
        return loop_items(DynamicList(iterable))
    if type(iterable) in (list, tuple) and iterable and all(
            is_tensor(v) and not isinstance(v, tf.Variable) for v in iterable):
        try:
            return loop_items(DynamicList(tf.stack(list(iterable))))
        except (TypeError, ValueError) as error:
            raise ConversionError(f"{_WHAT} over a list of tensors of different shapes or "
                                  "dtypes is not generalized") from error
    raise ConversionError(f"{_WHAT} over a {type(iterable).__name__} is not generalized")


def _same_type(a, b) -> bool:
    if isinstance(a, HostArray) or isinstance(b, HostArray):
        return type(a) is type(b) and a.dtype == b.dtype and \
            a.tensor.dtype == b.tensor.dtype and a.tensor.shape == b.tensor.shape
    if isinstance(a, MixedBool) or isinstance(b, MixedBool):
        return type(a) is type(b)
    if isinstance(a, SCALARS) or isinstance(b, SCALARS):
        return type(a) is type(b) and a.kind is b.kind and a.tensor.dtype == b.tensor.dtype
    if not (carries(a) and carries(b)):
        return False
    try:
        tf.nest.assert_same_structure(a, b)
    except (TypeError, ValueError):
        return False
    return all(same_kind(x, y) if is_array(x) or is_array(y) else
               x.dtype == y.dtype and x.shape == y.shape
               for x, y in zip(tf.nest.flatten(a), tf.nest.flatten(b)))


def _items_gained(ran, stopped, first, at_exit: int):
    """How many items a list gained in a loop of one exit test that ran `ran` iterations
    (the peeled one included): `first` after the peeled one where it was the last, else one
    per iteration but the last, which gained `at_exit` where the test stopped it."""
    if type(first) is int and first == at_exit == 1:
        return ran
    later = ran - 1 + (tf.where(stopped, at_exit, 1) if at_exit != 1 else 1)
    return tf.where(tf.equal(ran, 1), first, later)


def _speculated(first: Exit) -> None:
    """The peeled iteration's ops after its first exit test run whether or not it stopped
    there; Python runs them only where it went on (connectivity.speculative: a gradient
    reaching a variable only through them is None in Python where it stopped)."""
    if first.tested_at is None:
        return
    graph = tf.compat.v1.get_default_graph()
    last = last_op_id(graph)
    if last > first.tested_at:
        went_on = tf.cast(tf.logical_not(first.condition), tf.int32)
        speculative(graph, first.tested_at, last, went_on)


def _select(stop, at_exit, after, name: str, live):
    """The value a carried name has after an iteration: at the exit test if it stopped."""
    at_exit = lift_to(at_exit, after)
    if _same_type(at_exit, after):
        chosen = tf.nest.map_structure(lambda x, y: choose(stop, x, y),
                                       to_loop(at_exit), to_loop(after))
        return from_loop(after, chosen)
    if name in live:
        raise ConversionError(f"`{name}` changes type after the exit test of {_WHAT}, and is "
                              "read after the loop")
    return after  # read by nothing after the loop: any value will do


class ExitLoops:
    """Mixed into the graph runtime (next to GeneralControlFlow)."""

    def _exit_general(self, exit_site) -> bool:
        """Whether the plan generalizes the loop of this exit test (or one of its operands)."""
        general = self.tracer.plan.general_branches
        tests, operands = exit_sites(self.function.sites, exit_site)
        return any((self.key, s) in general for s in (exit_site,) + tests + operands)

    def _in_general_exit_loop(self) -> bool:
        """Whether a loop being built as one tf.while_loop runs this code (traced once for
        every iteration: a tensor-valued `if` there is a tf.cond, never a guess)."""
        return any(type(v) is Exit for v in self.tracer.loop_exits.values())

    def either(self, *operands):
        return self._short_circuit(operands, True)

    def both(self, *operands):
        return self._short_circuit(operands, False)

    def negate(self, value):
        return tf.logical_not(value) if is_symbolic(value) else not value

    def _short_circuit(self, operands, decisive: bool):
        """`or` (decisive True) / `and` over thunks: Python's when the operands are Python
        values; after a tensor operand the rest runs in a `tf.cond` branch taken only when
        Python would run it (traced once, it must not touch the heap or print)."""
        value = operands[0]()
        if len(operands) == 1:
            return value
        if not is_symbolic(value):
            return decisive if bool(value) is decisive else \
                self._short_circuit(operands[1:], decisive)
        tracer = self.tracer
        before = dict(tracer.shadow.values)

        def rest():
            tracer.callback_depth += 1  # (a guard there would live in the branch's graph)
            try:
                # (its ops that may raise run, as Python evaluates the operand: F74)
                return after_raising_ops(
                    _condition(_predicate(self._short_circuit(operands[1:], decisive))))
            finally:
                tracer.callback_depth -= 1
                tracer.shadow.values = dict(before)

        decided = _condition(value)
        return tf.cond(decided if decisive else tf.logical_not(decided),
                       lambda: tf.constant(decisive), rest)

    def _exit_iteration(self, key, get_state, run) -> Exit:
        exits = self.tracer.loop_exits
        if key in exits:
            raise ConversionError(f"{_WHAT} runs inside itself (recursion)")
        tests, operands = exit_sites(self.function.sites, key[1])
        record = Exit(get_state, len(tests), self.tracer.ledger, self.tracer)
        registered = {(key[0], t): record for t in tests}
        registered.update(((key[0], p), _OPERAND) for p in operands)
        registered[key] = registered.get(key, record)  # (marks the loop as being built)
        exits.update(registered)
        try:
            run()
        finally:
            for part in registered:
                exits.pop(part, None)
        if len(record.recorded) != record.tests:
            raise ConversionError(f"an exit test of {_WHAT} did not run")
        return record

    def _while_exit(self, site, key, items: LoopItems, body, get_state, set_state, names,
                    live, fresh=()):
        tracer = self.tracer
        if items.test is not None:
            first_test = _predicate(items.test())
            if not is_symbolic(first_test):
                tracer.read(first_test)
                if not first_test:
                    return
            else:  # (the first iteration is peeled: the loop must run once; else plainly)
                tracer.assume(self._site(site), self.key, first_test)
        elif isinstance(items.length, int):
            if items.length == 0:
                return
        else:
            tracer.assume(self._site(site), self.key, items.length > 0)

        def step(i):
            return body() if items.test is not None else body(items.item(i))

        ledger = tracer.ledger
        initial = get_state()
        bases = [len(v) if type(v) is list else None for v in initial]
        mark, writes, heap = ledger.mark(), tracer.shadow.writes, dict(ledger.attrs)
        contents = _contents(initial)
        loop_draws = LoopDraws(tracer)
        first = self._exit_iteration(key, get_state, lambda: step(0))
        _speculated(first)
        draw_counts = loop_draws.start(first, items.length)
        attributes = CarriedAttributes(ledger, mark, _WHAT)  # (graphgen/loop_heap.py)
        self._unchanged_heap(ledger.mark(), writes, _WHAT)  # (no variable updates)
        heap_values = tuple(  # (what the loop's first iteration read, or would have)
            heap[k][2] if k in heap else tracer.import_value(getattr(obj, n), source.attr(n))
            for k, (obj, source, n) in zip(attributes.keys, attributes.slots))
        first.extend(attributes, heap_values)
        count = len(initial)
        initial = tuple(initial) + heap_values
        bases += [None] * (len(initial) - count)
        names, live = list(names) + attributes.names, set(live) | set(attributes.names)

        def get_all():
            return tuple(get_state()) + attributes.values()

        def set_all(state):
            set_state(tuple(state[:count]))
            attributes.set(state[count:])

        after = list(get_all())
        carried, grown = [], []
        for i, (before, value) in enumerate(zip(initial, after)):
            value = after[i] = lift(value, before)
            if carries(value):
                carried.append(i)
            elif type(value) is list and value is before and bases[i] is not None and \
                    len(value) == bases[i] + 1 and id(value) not in tracer.copy_sources:
                grown.append(i)
            elif value is before or value is UNDEFINED and i < count or \
                    isinstance(value, (int, float, bool, str)) and \
                    isinstance(before, (int, float, bool, str)) and value == before:
                continue  # (a Python value where the loop began with a tensor: not so)
            elif i >= count:
                raise ConversionError(f"heap attribute `{names[i]}` holds a "
                                      f"{type(value).__name__} in {_WHAT}")
            else:
                raise ConversionError(f"loop variable `{names[i]}` changes a Python value in "
                                      f"{_WHAT}")
        # (a name no iteration reads before binding it and nothing reads after the loop:
        # each iteration starts it as NOT_CARRIED; after the loop, the peeled iteration's)
        uncarried = [k for k in carried if k < count and names[k] in fresh]
        carried = [k for k in carried if k not in uncarried]
        _refuse_in_place(contents, initial, _WHAT, skip=set(grown))
        kinds, arrays, counts, written = [], [], [], []
        for i in grown:
            elements = [element(v, _WHAT) for v in after[i]]
            kind, last = elements[-1][1], elements[-1][0]
            if any(k is not kind or t.dtype != last.dtype or t.shape != last.shape
                   for t, k in elements) or \
                    any(n - bases[i] not in (0, 1) for n in first.lengths(i)):
                raise ConversionError(f"list `{names[i]}` in {_WHAT} holds items of "
                                      "different kinds or shapes")
            array = tf.TensorArray(elements[-1][0].dtype, size=0, dynamic_size=True,
                                   element_shape=elements[-1][0].shape)
            for j, (tensor, _) in enumerate(elements):
                array = array.write(j, tensor)
            kinds.append(kind)
            arrays.append(array)
            counts.append(first.grown(i, bases[i]))
            written.append([t for t, _ in elements])
        values = [to_loop(first.select(k, after[k], names[k], live))
                  for k in carried]
        templates = [after[k] for k in carried]
        # (a carried int's bound by induction over a loop of known length: F452)
        ints = CarriedInts({k: start(v, after[k]) for k, v in zip(carried, values)
                            if isinstance(after[k], SymbolicScalar) and after[k].kind is int},
                           items.length if items.test is None else None)
        # One exit test: an iteration that goes on grows each list by exactly one, so at
        # iteration i every list has gained i items since the loop began (no counters)
        counted = first.tests != 1
        exit_growth: dict = {}  # (one exit test) list -> items it gains when the test stops

        def counts_of(i, counts_) -> list:
            return counts_ if counted else [i] * len(grown)

        def restore(values_, counts_, arrays_) -> list:
            state = list(after)
            for k in uncarried:
                state[k] = NOT_CARRIED
            for k, template, value in zip(carried, templates, values_):
                state[k] = ints.entering(k, from_loop(template, value))
            accumulators = [Accumulator(a, bases[k] + c if bases[k] else c)
                            for k, a, c in zip(grown, arrays_, counts_)]
            for k, accumulator in zip(grown, accumulators):
                state[k] = accumulator
            set_all(state)
            return accumulators

        def condition(i, stop, values_, counts_, arrays_, draws_):
            if items.test is None:
                going = i < items.length
            else:
                restore(values_, counts_of(i, counts_), arrays_)
                mark, writes = tracer.ledger.mark(), tracer.shadow.writes
                local = tracer.local_writes
                going = _condition(_predicate(items.test()))  # (traced once: no effects)
                self._unchanged_heap(mark, writes, f"the test of {_WHAT}", local)
            return after_raising_ops(tf.logical_and(going, tf.logical_not(stop)))

        def loop_body(i, stop, values_, counts_, arrays_, draws_):
            accumulators = restore(values_, counts_of(i, counts_), arrays_)
            carried_in = attributes.values()
            mark, writes, local = ledger.mark(), tracer.shadow.writes, tracer.local_writes
            loop_draws.enter(draws_)
            try:
                record = self._exit_iteration(key, get_state, lambda: step(i))
            finally:
                loop_draws.leave()
            new_draws = loop_draws.after_body(record)
            attributes.check_body(mark)
            self._unchanged_heap(ledger.mark(), writes, _WHAT, local)
            record.extend(attributes, carried_in)
            new = [carried_as(value, template) for value, template in zip(get_all(), after)]
            for k in carried:
                if not same_kind(after[k], new[k]):
                    raise ConversionError(f"`{names[k]}` changes type in {_WHAT}")
            for k, accumulator in zip(grown, accumulators):
                if new[k] is not accumulator or accumulator.appends != 1 or \
                        any(n not in (0, 1) for n in record.lengths(k)):
                    raise ConversionError(f"list `{names[k]}` must grow by one item per "
                                          f"iteration of {_WHAT}")
            lists.body_traced([a.array for a in accumulators])
            new_values = [to_loop(record.select(k, new[k], names[k], live)) for k in carried]
            for k, incoming, value in zip(carried, values_, new_values):
                ints.leaving(k, incoming, value)
            if counted:
                new_counts = [c + record.grown(k) for k, c in zip(grown, counts_)]
            else:
                new_counts = []
                exit_growth.update((k, record.lengths(k)[0]) for k in grown)
            return after_raising_ops((i + 1, record.condition, new_values, new_counts,
                                      [a.array for a in accumulators], new_draws))

        lists = LoopLists(tracer)
        starts = [bases[k] + c if type(c) is int else None for k, c in zip(grown, counts)]
        try:
            if items.test is None:  # (a `for` over a sequence of known length)
                loop = lambda *parts: deferred_checks.bounded_loop(  # noqa: E731
                    *parts, length=items.length)
            else:
                deferred_checks.unbounded_inside()
                loop = tf.while_loop
            ran, stopped, values, loop_counts, arrays, draw_counts = loop(
                condition, loop_body, (tf.constant(1), first.condition, values,
                                       counts if counted else [], arrays, draw_counts))
        except (ValueError, TypeError) as error:  # (shapes that change per iteration...)
            raise ConversionError(f"{_WHAT} cannot be one tf.while_loop: {error}") from error
        identity.built(tracer, values)
        counts = loop_counts if counted else [
            _items_gained(ran, stopped, c, exit_growth[k]) for k, c in zip(grown, counts)]
        loop_draws.finish(draw_counts)
        state = list(after)
        for k, template, value in zip(carried, templates, values):
            state[k] = ints.after_loop(k, from_loop(template, value))
        stacks = lists.stacked(arrays, [bases[k] + grew for k, grew in zip(grown, counts)],
                               starts, [w[:s or 0] for w, s in zip(written, starts)])
        for k, kind, items in zip(grown, kinds, stacks):
            state[k] = LoopResult(items, kind)
        set_all(state)
