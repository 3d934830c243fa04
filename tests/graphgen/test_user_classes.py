"""What Python runs implicitly for the program's own classes during a trace
(graphgen/user_classes.py, F185, the probes' round): a constructor's heap writes, a class
counter bumped in `__init__`, an operator method's effects, a metaclass's `__call__`, a
descriptor counting its reads, `__getattr__`/`__setattr__` overrides ran once, while
tracing, and never when the graph ran. Now a user class's `__init__` runs converted and
the rest refuse the trace. Each test compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def _work(y):
    for _ in range(6):  # (enough work that janus makes a graph of it)
        y = tf.tanh(y * 1.01 + 0.1)
    return y


def _classes(log):
    """The classes of one side (their class attributes are state too)."""

    class Point:
        count = 0

        def __init__(self, v):
            log.made.append(1)
            type(self).count += 1
            self.v = v

    class Meta(type):
        def __call__(cls, *args):
            log.created.append(cls.__name__)
            return super().__call__(*args)

    class Made(metaclass=Meta):
        def __init__(self, v):
            self.v = v

    return Point, Made


class Log:
    def __init__(self):
        self.made, self.created = [], []
        self.Point, self.Made = _classes(self)


def construct(s, x):
    p = s.Point(x)
    return _work(p.v * 2.0), len(s.made), s.Point.count


def test_a_constructor_s_heap_writes_happen_on_every_call():
    stats = assert_same(construct, [(tf.constant(float(i)),) for i in range(7)], Log)
    assert stats.graph_calls > 0


class Vec:
    def __init__(self, log, t):
        self.log, self.t = log, t

    def __add__(self, other):
        self.log.made.append("add")
        return Vec(self.log, self.t + other.t)


def operators(s, x):
    v = Vec(s, x)
    return _work((v + v).t)


def metaclass_made(s, x):
    s.made.append(len(s.created))
    return _work(s.Made(x).v)


class Counted:
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        obj.hits += 1
        return obj._w

    def __set__(self, obj, value):
        obj._w = value


class Model:
    w = Counted()

    def __init__(self):
        self.hits = 0
        self._w = tf.constant(1.0)
        self.log = []

    def __getattr__(self, name):
        if name != "scale":
            raise AttributeError(name)
        self.log.append(f"missing {name}")
        return 0.5


def descriptors(m, x):
    m.w = m.w * 0.5 + x
    return _work(m.w * m.scale)


def test_operators_metaclasses_and_descriptors_of_the_user_s_run_as_in_python():
    calls = [(tf.constant(float(i)),) for i in range(6)]
    assert_same(operators, calls, Log)
    assert_same(metaclass_made, calls, Log)
    assert_same(descriptors, calls, Model)


class Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])
        object.__setattr__(self, "a", tf.constant(1.0))

    def __setattr__(self, name, value):
        self.log.append(f"set {name}")
        object.__setattr__(self, name, value)


def set_override(o, x):
    o.a = o.a + x
    return _work(o.a)


def test_a_setattr_override_runs_on_every_write():
    assert_same(set_override, [(tf.constant(float(i)),) for i in range(6)], Logged)


# -- library descriptors that run the program's code (F215)

def _scaled(self, k):
    self.reads += 1
    return self.base * k


def _descriptor_classes():
    import functools

    class Model:
        def __init__(self):
            self.base, self.reads, self.builds = 1.0, 0, 0
            self.w = tf.Variable([1.0, 2.0])

        @functools.cached_property
        def factor(self):
            self.builds += 1
            return self.base * 2.0

        @functools.cached_property
        def norm(self):
            return tf.reduce_sum(self.w)

        scaled = property(functools.partial(_scaled, k=3.0))

    return Model


class Cached:
    def __init__(self):
        self.Model = _descriptor_classes()
        self.m = self.Model()


def _invalidate(s, i, every):
    if i % every == 0:
        s.m.base = float(i)
        s.m.w.assign([1.0, float(i)])
        s.m.__dict__.pop("factor", None)
        s.m.__dict__.pop("norm", None)
    return s, tf.constant([1.0, 2.0])


def test_a_cached_property_is_not_computed_by_the_trace():
    def step(s, x):
        return _work(x * s.m.factor + s.m.norm), hasattr(s.m, "factor")

    for every in (1, 3, 100):
        stats = assert_same(step, [lambda s, i=i: _invalidate(s, i, every)
                                   for i in range(9)], make_state=Cached)
        if every == 100:
            assert stats.graph_calls >= 5, stats


def test_a_cached_property_of_an_object_made_in_the_call():
    def step(s, x):
        m = s.Model()
        return _work(x * m.factor), m.builds

    assert_same(step, [lambda s: (s, tf.constant(1.0))] * 6, make_state=Cached)


def test_a_property_whose_getter_is_a_partial_runs_converted():
    def step(s, x):
        return _work(x * s.m.scaled), s.m.reads

    stats = assert_same(step, [lambda s: (s, tf.constant(1.0))] * 6, make_state=Cached)
    assert stats.graph_calls >= 3, stats
