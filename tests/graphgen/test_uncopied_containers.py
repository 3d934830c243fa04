"""Mutable containers janus does not copy (F41: fuzz generator v20, seeds 560012,
560047). janus copies exact lists and dicts from the heap into a trace and writes their
changes back after each graph call; a `deque`, `set`, `bytearray` or dict/list subclass
(`defaultdict`, `Counter`, `OrderedDict`) was only guarded by identity or type. A graph
then kept the items it saw while tracing (`n in SEEN` after SEEN changed), made the
container's changes once, at trace time (`SEEN.add(n)`, `C[n] += 1`), or left a
symbolic tensor in it (`BUF.append(tf.reduce_mean(x))`, an internal error the next
call). Now reading one refuses the trace: those calls run plainly."""
import collections

import pytest
import tensorflow as tf

import janus
from janus.graphgen.value_kinds import uncopied_container


def _compare(make, calls, between=None):
    """Run `make(state)`'s function plainly and jitted over `calls` (a fresh state dict
    each side), comparing results and the state after every call."""
    sides = {}
    for side in ("plain", "janus"):
        state = {}
        fn = make(state)
        if side == "janus":
            fn = janus.jit(fn)
        seen = []
        for i, args in enumerate(calls):
            try:
                out = fn(*args)
                out = out.numpy().tolist() if hasattr(out, "numpy") else out
            except Exception as exc:  # noqa: BLE001 - the exception is part of the outcome
                out = (type(exc).__name__, str(exc))
            if between is not None:
                between(state, i)
            seen.append((out, repr({k: list(v) if isinstance(v, collections.deque) else v
                                    for k, v in state.items()})))
        sides[side] = seen
    for i, (plain, jitted) in enumerate(zip(sides["plain"], sides["janus"])):
        assert jitted == plain, f"call {i}"


X = tf.constant([1.0, 2.0])


def test_a_set_changed_in_the_function():
    def make(state):
        state["seen"] = set()

        def f(x, n):
            if n in state["seen"]:
                return x * 2.0
            state["seen"].add(n)
            return x
        return f
    _compare(make, [(X, 1)] * 3 + [(X, 2)] * 4 + [(X, 3)] * 3)


def test_a_set_changed_between_calls():
    def make(state):
        state["seen"] = {1}

        def f(x, n):
            if n in state["seen"]:
                return x * 2.0
            return x
        return f

    def between(state, i):
        if i == 4:
            state["seen"].discard(1)
    _compare(make, [(X, 1)] * 8, between)


@pytest.mark.parametrize("kind", ["defaultdict", "Counter"])
def test_dict_subclasses_counting(kind):
    def make(state):
        state["c"] = collections.defaultdict(int) if kind == "defaultdict" else \
            collections.Counter()

        def f(x, n):
            state["c"][n] += 1
            return x * float(state["c"][n])
        return f
    _compare(make, [(X, 1)] * 5 + [(X, 2)] * 4)


def test_a_deque_of_tensors_as_a_replay_buffer():
    def make(state):
        state["buf"] = collections.deque(maxlen=3)

        def f(x, n):
            state["buf"].append(tf.reduce_mean(x) * float(n))
            return x + tf.add_n(list(state["buf"]))
        return f
    _compare(make, [(X, 1)] * 4 + [(X, 2)] * 4)


def test_a_deque_changed_between_calls():
    def make(state):
        state["buf"] = collections.deque([1.0, 2.0])

        def f(x, n):
            return x * sum(state["buf"])
        return f
    _compare(make, [(X, 1)] * 8, lambda state, i: state["buf"].append(5.0))


def test_which_containers_are_refused():
    class Config(dict):
        pass
    assert all(uncopied_container(v) for v in (
        set(), bytearray(b"a"), collections.deque(), collections.OrderedDict(),
        collections.defaultdict(list), collections.Counter(), Config()))
    assert not any(uncopied_container(v) for v in ([], {}, (), frozenset(), "s", 1.0, X))
