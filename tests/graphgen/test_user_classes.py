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
