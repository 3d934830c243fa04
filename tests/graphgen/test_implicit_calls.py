"""Methods of the user's classes Python calls implicitly (`len(buf)`, `if buf:`, `buf[i]`,
`for v in buf`, `v in buf`, `buf + 1`, `buf < 3`, `buf == 3`, `str(buf)`, f-strings) ran
unconverted while janus traced: they read the real heap, which the trace had changed
(an append, `count += 1`) and no guard covered, so the graph kept the values of its trace
(zoo p60: a replay buffer's `len(buffer)` stayed 2 while it grew). Each call now matches
plain Python (graphgen/implicit_calls.py)."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


class Buffer:
    def __init__(self):
        self.items = []
        self.count = 0

    def __len__(self):
        return len(self.items)

    def __bool__(self):
        return self.count > 2

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __setitem__(self, i, v):
        self.items[i] = v * 2.0

    def __contains__(self, v):
        return v < self.count

    def __add__(self, other):
        return self.count + other

    def __str__(self):
        return f"Buffer({self.count})"

    def __lt__(self, other):
        return self.count < other

    def __eq__(self, other):
        return self.count == other

    __hash__ = object.__hash__

    def __call__(self, x):
        return x * self.count


READS = {
    "len": lambda b, x: len(b),
    "truth": lambda b, x: 1 if b else 0,
    "bool": lambda b, x: bool(b),
    "iterate": lambda b, x: tf.add_n([v for v in b]),
    "item": lambda b, x: b[-1] + b[0],
    "contains": lambda b, x: 3 in b,
    "add": lambda b, x: b + 1,
    "str": lambda b, x: str(b),
    "format": lambda b, x: f"{b}",
    "less": lambda b, x: b < 3,
    "equal": lambda b, x: b == 3,
    "call": lambda b, x: b(x),
    "for": lambda b, x: _total(b, x),
    "store": lambda b, x: _store(b, x),
}
CONVERTED = ("len", "truth", "bool", "item", "str", "call", "for", "store")
"""Protocols converted code goes through janus for: the user's method runs converted,
in the graph."""


def _total(b, x):
    for v in b:
        x = x + v
    return x


def _store(b, x):
    b[0] = x
    return b.items[0] + len(b.items)


@pytest.mark.parametrize("name", sorted(READS))
def test_an_implicitly_called_method_reads_the_call_s_heap(name):
    read = READS[name]

    def step(b, x):
        b.items.append(x)
        b.count += 1
        return read(b, x)

    calls = [(tf.constant(float(i)),) for i in range(7)]
    stats = assert_same(step, calls, make_state=Buffer)
    if name in CONVERTED:
        assert stats.graph_calls >= 3, stats


class Replay:
    """A replay buffer as zoo p60 writes it."""

    def __init__(self):
        self.items = []

    def __len__(self):
        return len(self.items)


def warm_up(buffer, x):
    buffer.items.append(x)
    if len(buffer) < 4:
        return None
    return tf.add_n(buffer.items[-4:])


def test_a_replay_buffer_s_length_grows_with_it():
    stats = assert_same(warm_up, [(tf.constant(float(i)),) for i in range(8)],
                        make_state=Replay)
    assert stats.calls == 8


def test_under_a_profiler_or_a_tracer_the_buffer_s_length_is_still_right():
    # (janus watches with sys.settrace: beside cProfile it works as ever; beside another
    # tracer (a debugger, coverage) such a trace refuses and the calls run plainly)
    import cProfile
    import sys
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        stats = assert_same(warm_up, [(tf.constant(float(i)),) for i in range(8)],
                            make_state=Replay)
    finally:
        profiler.disable()
    assert stats.graph_calls > 0, stats
    sys.settrace(lambda frame, event, arg: None)
    try:
        assert_same(warm_up, [(tf.constant(float(i)),) for i in range(8)], make_state=Replay)
    finally:
        sys.settrace(None)


# -- a user `__eq__`/`__hash__` run by a builtin or a list method (F218)

class Tag:
    def __init__(self, s):
        self.s = s

    def __eq__(self, other):
        return isinstance(other, Tag) and self.s == other.s

    def __hash__(self):
        return len(self.s)

    def __repr__(self):  # (the heap snapshot names dict keys by it)
        return f"Tag({self.s!r})"


class Tags:
    def __init__(self):
        self.tags = [Tag("a"), Tag("bb"), Tag("ccc")]
        self.q = Tag("bb")
        self.table = {Tag("bb"): 2.0, Tag("ccc"): 3.0}


LOOKUPS = {
    "list.index": lambda s: float(s.tags.index(s.q)),
    "list.count": lambda s: float(s.tags.count(s.q)),
    "hash": lambda s: float(hash(s.q)),
    "operator.eq": lambda s: float(__import__("operator").eq(s.tags[0], s.q)),
    "len(set(...))": lambda s: float(len(set(s.tags))),
    "a dict keyed by one": lambda s: s.table.get(s.q, -1.0),
    "in": lambda s: float(s.q in s.tags),
}


@pytest.mark.parametrize("name", list(LOOKUPS))
def test_a_user_eq_or_hash_run_by_a_builtin_reads_the_call_s_heap(name):
    lookup = LOOKUPS[name]

    def step(s, x):
        return x * lookup(s)

    def call(s, i):
        if i == 4:
            s.q.s = "ccc"
        if i == 6:
            s.tags[0].s = "ccc"
        return s, tf.constant(1.0)

    assert_same(step, [lambda s, i=i: call(s, i) for i in range(8)], make_state=Tags)


# -- janus's own tables of callables test the program's callable by identity (F316)

class CountingScaler:
    """A callable whose `__eq__` and `__hash__` count: plain Python never runs them."""

    def __init__(self, k):
        self.k = k
        self.compared = 0
        self.hashed = 0

    def __eq__(self, other):
        self.compared += 1
        return isinstance(other, CountingScaler) and other.k == self.k

    def __hash__(self):
        self.hashed += 1
        return 7

    def __call__(self, x):
        return sum(x) * self.k if isinstance(x, list) else x * self.k


class NaiveAct:
    """An activation object whose `__eq__` reads `other.name` (AttributeError for a
    builtin): legitimate, as plain Python never compares it."""

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return self.name == other.name

    __hash__ = object.__hash__

    def __call__(self, x):
        return tf.nn.relu(x) if self.name == "relu" else tf.tanh(x)


class Callables:
    def __init__(self):
        self.f = CountingScaler(2.0)
        self.act = NaiveAct("relu")


CALLED = {
    "a tensor": lambda s, x, n: s.f(x),
    "a Python float": lambda s, x, n: x + s.f(1.5),
    "a fed int": lambda s, x, n: x + float(s.f(n)),
    "a list grown in a loop": lambda s, x, n: x + s.f([float(i) for i in range(n)]),
    "a naive __eq__": lambda s, x, n: tf.reduce_sum(s.act(x)),
    "twice, nested": lambda s, x, n: s.f(s.act(x)),
}


@pytest.mark.parametrize("name", list(CALLED))
def test_calling_a_user_callable_never_runs_its_eq_or_hash(name):
    called = CALLED[name]

    def step(s, x, n):
        return tf.reduce_sum(called(s, x, n))

    stats = assert_same(step, [lambda s, i=i: (s, tf.constant([float(i), -1.0]), 2 + i % 2)
                               for i in range(10)], make_state=Callables)
    assert stats.internal_errors == 0
    assert stats.graph_calls >= 4, stats


class HoldsVariable:
    def __init__(self):
        import keras
        self.v = keras.Variable(1.0)


def test_calling_a_keras_variable_raises_as_plain_python():
    # (`.value()` where Keras 3's `value` is a property: refusals.call_reason compared
    # the variable with `float`, running its `__eq__`, an internal error)
    def step(s, x):
        return x + s.v.value()

    stats = assert_same(step, [(tf.constant(float(i)),) for i in range(6)],
                        make_state=HoldsVariable)
    assert stats.internal_errors == 0
