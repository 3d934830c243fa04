"""Python constructs whose heap reads and writes bypassed the trace (fuzz generator v15).

Each function is compared with plain Python call by call (tests/differential.py). On the
old code: a mutable default argument was mutated once, while tracing; `getattr(obj, name,
default)` / `hasattr` were folded in unguarded; `del obj.a` after `obj.a = ...` in one call
failed in the write-back (internal error); a property's getter/setter ran as plain Python
while tracing (stale reads, writes done once); a user context manager's `__enter__` /
`__exit__` ran once, while tracing.
"""
import contextlib

import tensorflow as tf

from tests.differential import assert_same

X = [(tf.constant([1.0, 2.0]),)] * 7


class State:
    def __init__(self):
        self.count = 0
        self.hist = []
        self.total = 0.0
        self.h = tf.zeros([])

    @property
    def scaled(self):
        return self.h * 0.5 + self.total * 0.1

    @property
    def level(self):
        return self.count

    @level.setter
    def level(self, v):
        self.count = v
        self.hist.append(v)


def make_grow():
    """A helper with a mutable default (one per state: each side has its own)."""
    def grow(a, seen=[]):  # noqa: B006 - the construct under test
        seen.append(len(seen))
        if len(seen) > 3:
            return a * 0.5
        return a + float(len(seen))
    return grow


class DefaultState(State):
    def __init__(self):
        super().__init__()
        self.grow = make_grow()


def mutable_default(s, x):
    return s.grow(x) + float(len(s.grow.__defaults__[0]))


def getattr_default(s, x):
    s.count += 1
    if s.count == 4:
        s.w = 3.0
    if s.count == 6:
        s.z = 1
    y = x * getattr(s, "w", 1.0)
    if hasattr(s, "z"):
        y = y + 10.0
    return y


def set_then_delete(s, x):
    s.mark = getattr(s, "mark", 0) + 1
    if s.mark > 2:
        del s.mark
        x = x * 0.5
    return x


def properties(s, x):
    s.level = s.level + 1
    s.total = s.total + 0.5
    y = x + s.scaled
    if s.level > 4:
        s.level = 0
    print("level", s.level, s.count)
    return y + float(s.level)


class Scope:
    def __init__(self, s):
        self.s = s

    def __enter__(self):
        self.s.hist.append(len(self.s.hist))
        return self

    def __exit__(self, *exc):
        self.s.count += 1
        return False


@contextlib.contextmanager
def timed(s):
    s.hist.append(-1)
    try:
        yield len(s.hist)
    finally:
        s.total = s.total + 0.5


def context_managers(s, x):
    with tf.name_scope("block"):
        x = x * 2.0
    with Scope(s):
        x = x + 1.0
    with timed(s) as v:
        x = x * float(v)
    return x


def test_mutable_default_argument():
    assert_same(mutable_default, X, make_state=DefaultState)


def test_getattr_and_hasattr_read_the_heap_of_each_call():
    assert_same(getattr_default, X, make_state=State)


def test_attribute_set_then_deleted_in_one_call():
    stats = assert_same(set_then_delete, X, make_state=State)
    assert stats.graph_calls >= 1, stats


def test_property_getter_and_setter():
    stats = assert_same(properties, X, make_state=State)
    assert stats.graph_calls >= 1, stats


def test_user_context_managers():
    assert_same(context_managers, X, make_state=State)


class Config:
    scale = 1.0
    seen = []


def class_attributes(s, x):
    Config.seen.append(len(Config.seen))
    s.count += 1
    if s.count % 3 == 0:
        Config.scale = Config.scale + 1.0
    return x * Config.scale + float(len(Config.seen))


def test_class_attributes_read_and_written():
    """Class attributes were folded in as the trace saw them (unguarded); the list one
    was appended to once, while tracing. One class serves both sides: before each janus
    call it is reset to what the plain call started from, and compared after."""
    import janus

    saved = (Config.scale, list(Config.seen))
    try:
        plain_state, jit_state = State(), State()
        jit = janus.jit(class_attributes)
        for _ in range(7):
            x = tf.constant([1.0, 2.0])
            before = (Config.scale, list(Config.seen))
            expected = class_attributes(plain_state, x).numpy()
            after = (Config.scale, list(Config.seen))
            Config.scale, Config.seen[:] = before
            actual = jit(jit_state, x).numpy()
            assert (Config.scale, Config.seen) == after
            assert (actual == expected).all(), (actual, expected)
        assert jit.stats.graph_calls >= 1, jit.stats
    finally:
        Config.scale, Config.seen[:] = saved


def typed(v):
    if isinstance(v, bool):
        return 2.0 if v else -1.0
    if isinstance(v, (int, float)):
        return float(v) * 0.25
    return 0.0


def isinstance_of_a_fed_number(s, x, n):
    return x + typed(n) + (1.0 if type(n) is int else 0.0)


def test_isinstance_of_a_fed_number():
    """A Python int janus feeds to the graph (it changes from call to call) is still an
    int to `isinstance` and `type` (it was janus's stand-in: no branch matched)."""
    x = tf.constant([1.0, 2.0])
    stats = assert_same(isinstance_of_a_fed_number, [(x, n) for n in (1, 1, 1, 1, 4, 4, 2, 3)],
                        make_state=State)
    assert stats.graph_calls >= 1, stats


# -- views of heap containers kept on the heap (F226)

class Views:
    def __init__(self):
        self.w = {"a": 1.0, "b": 2.0}
        self.vals = self.w.values()
        self.keys = self.w.keys()
        self.items = self.w.items()
        self.log = []
        self.get = self.w.get
        self.append = self.log.append


def _change_views(s, i):
    if i == 4:
        s.w["a"] = 5.0
    if i == 6:
        s.w["c"] = 1.0
    return (s, tf.constant([1.0, float(i)]))


def test_dict_views_follow_their_dict():
    def step(s, x):
        total = sum(s.vals) + len(s.keys)
        for k, v in s.items:
            total = total + v
        return x * total

    assert_same(step, [lambda s, i=i: _change_views(s, i) for i in range(8)],
                make_state=Views)


def test_bound_methods_of_heap_containers():
    def step(get, append, log, x):
        append(1)
        return x * get("a") * len(log)

    def entry(s, i):
        _, x = _change_views(s, i)
        return (s.get, s.append, s.log, x)

    assert_same(step, [lambda s, i=i: entry(s, i) for i in range(8)], make_state=Views)
