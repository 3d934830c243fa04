"""Attributes written, deleted and read by a call rather than a statement
(graphgen/attributes.py): `setattr(o, "n", v)`, `delattr(o, "n")`, `o.__setattr__("n",
v)`, `setattr(Cls, "seen", ...)` wrote the real object while tracing (a graph tensor or a
fed-number placeholder left in it; a refused trace had already deleted the attribute
before the plain rerun: F214). Each test compares janus with plain Python call by call."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


class Rec:
    def __init__(self):
        self.n = 0
        self.tag = None
        self.tmp = 1
        self.cls = type("Seen", (), {"seen": 0})  # (one per side: its own class)


WRITES = {
    "setattr": lambda r, tag: setattr(r, "n", r.n + 1),
    "setattr text": lambda r, tag: setattr(r, "tag", tag),
    "bound __setattr__": lambda r, tag: r.__setattr__("n", r.n + 1),
    "object.__setattr__": lambda r, tag: object.__setattr__(r, "n", r.n + 2),
    "setattr on a class": lambda r, tag: setattr(r.cls, "seen", r.cls.seen + 1),
    "type.__setattr__": lambda r, tag: type.__setattr__(r.cls, "seen", r.cls.seen + 3),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_an_attribute_set_by_a_call_is_a_deferred_write(name):
    write = WRITES[name]

    def step(r, x, tag):
        write(r, tag)
        return x * 2.0 + r.n + r.cls.seen

    calls = [lambda r, i=i: (r, tf.constant(1.0), "t%d" % (i % 2)) for i in range(8)]
    stats = assert_same(step, calls, make_state=Rec)
    assert stats.graph_calls >= 4, stats


def test_an_attribute_deleted_by_a_call_is_a_deferred_delete():
    def step(r, x):
        if hasattr(r, "tmp"):
            delattr(r, "tmp")
            return x * 2.0
        return x

    def restore(r, i):
        if i % 2 == 0:
            r.tmp = 1
        return r, tf.constant(1.0)

    calls = [lambda r, i=i: restore(r, i) for i in range(8)]
    stats = assert_same(step, calls, make_state=Rec)
    assert stats.graph_calls >= 2, stats


def test_a_computed_attribute_name_runs_in_python():
    def step(r, x, name):
        setattr(r, name, x)
        return x + 1.0

    calls = [lambda r, i=i: (r, tf.constant(float(i)), "ab"[i % 2]) for i in range(5)]
    assert_same(step, calls, make_state=Rec)


# -- methods read through an object: guarded as a stored function is (F216)

def f1(self, x):
    return x * 2.0


def f2(self, x):
    return x + 2.0


def _classes():
    class Net:
        scale = 2.0

        def fwd(self, x):
            return x * 2.0

        def __call__(self, x):
            return x * 3.0

        @classmethod
        def mul(cls, x):
            return x * cls.scale

    class Losses:
        def __init__(self, k):
            self.k = k

        def mse(self, x):
            return tf.reduce_mean(x * x) * self.k

        def l1(self, x):
            return tf.reduce_mean(tf.abs(x)) * self.k

    return Net, Losses


class Methods:
    def __init__(self):
        self.Net, Losses = _classes()  # (one per side: the classes are changed)
        self.net = self.Net()
        self.l1, self.l2 = Losses(1.0), Losses(10.0)
        self.loss_fn = self.l1.mse
        self.bound = __import__("types").MethodType(f1, self.net)


SWAPS = {
    "method on the class": (lambda s: s.net.fwd, lambda s: setattr(
        s.Net, "fwd", lambda self, x: x + 100.0)),
    "__call__ on the class": (lambda s: s.net, lambda s: setattr(
        s.Net, "__call__", lambda self, x: x * 5.0)),
    "classmethod on the class": (lambda s: s.Net.mul, lambda s: setattr(
        s.Net, "mul", classmethod(lambda cls, x: x + cls.scale))),
    "classmethod through an instance": (lambda s: s.net.mul, lambda s: setattr(
        s.Net, "mul", classmethod(lambda cls, x: x - cls.scale))),
    "another method of the object": (lambda s: s.loss_fn, lambda s: setattr(
        s, "loss_fn", s.l1.l1)),
    "the method of another object": (lambda s: s.loss_fn, lambda s: setattr(
        s, "loss_fn", s.l2.mse)),
    "a MethodType on the instance": (lambda s: s.bound, lambda s: setattr(
        s, "bound", __import__("types").MethodType(f2, s.net))),
}


@pytest.mark.parametrize("name", list(SWAPS))
def test_a_method_replaced_between_calls_is_seen(name):
    read, swap = SWAPS[name]

    def step(s, x):
        return read(s)(x)

    def call(s, i):
        if i == 4:
            swap(s)
        return s, tf.constant([2.0, -1.0])

    stats = assert_same(step, [lambda s, i=i: call(s, i) for i in range(8)],
                        make_state=Methods)
    assert stats.graph_calls >= 4, stats


def test_a_method_of_two_instances_keeps_one_graph():
    Net, _ = _classes()
    a, b = Net(), Net()

    def step(net, x):
        return net.fwd(x) + net.mul(x)

    stats = assert_same(step, [(a if i % 2 else b, tf.constant(1.0)) for i in range(8)])
    assert stats.graph_calls >= 6, stats


class Switched:
    def __call__(self, a):
        return a + 1.0


def _times_three(self, a):
    return a * 3.0


SWITCHES = [Switched.__call__, _times_three]
SWITCHED = Switched()


def switch_then_call(x, n):
    Switched.__call__ = SWITCHES[n % 2]
    return SWITCHED(x)


def test_a_call_replaced_by_the_call_itself_is_the_one_called():
    """F257: the trace resolved `type(H).__call__` before the call's own write to it."""
    results = {}
    for name, fn in (("plain", switch_then_call), ("janus", janus.jit(switch_then_call))):
        Switched.__call__ = SWITCHES[0]
        results[name] = [float(fn(tf.constant(1.0), n)) for n in (3, 3, 3, 3, 4, 4, 3, 4)]
    Switched.__call__ = SWITCHES[0]
    assert results["janus"] == results["plain"]
