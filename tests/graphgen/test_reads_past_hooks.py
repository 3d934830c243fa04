"""Values janus would read past its hooks, changed between calls (the graph kept the
trace's): a module's attribute (`config.LR`), a class's read through `type(obj)` or
`sys.modules`, the state of library objects read by their own code (`event.is_set()`,
`float(decimal)`, `repr(namespace)`), an attribute read by `str.format`, an object a
library call handed out, a callable object `map` calls, a function behind
`@tf.custom_gradient` reading a global (graphgen/past_hooks.py, attributes.py,
refusals.wrapped_state_reason). Each compared with plain Python call by call, the
changes made between calls by the `calls` entries."""
import argparse
import contextvars
import datetime
import decimal
import enum
import sys
import threading
import weakref

import tensorflow as tf

import janus
from tests.differential import assert_same
from tests.graphgen import settings_module as config

X = tf.constant([1.0, 2.0])


class Agent:
    eps = 0.5


class State:
    def __init__(self):
        self.agent = Agent()
        self.stop = threading.Event()
        self.price = decimal.Decimal("1.5")
        self.wait = datetime.timedelta(seconds=2)
        self.args = argparse.Namespace(lr=1.0)
        self.cfg = Agent()
        self.ref = weakref.ref(self.cfg)


def settings(s, x):
    return x * config.LR + x * config.Model.scale + x * type(s.agent).eps + \
        x * sys.modules[config.__name__].LR


def changed(i):
    def entry(s):
        config.LR, config.Model.scale, Agent.eps = 0.1 * (i // 3), 1.0 + i // 2, 0.5 * (i // 4)
        return (s, X)
    return entry


def test_module_and_class_attributes_are_read_on_each_call():
    stats = assert_same(settings, [changed(i) for i in range(10)], make_state=State)
    assert stats.graph_calls >= 4


def library_objects(s, x):
    if s.stop.is_set():
        return x * 0.0
    return x * float(s.price) + x * s.wait.total_seconds()


def text(s, x):
    print(repr(s.args), "{0.eps}".format(s.cfg))
    return x * s.ref().eps


def stepped(i):
    def entry(s):
        if i == 5:
            s.stop.set()
        s.price, s.wait = decimal.Decimal(i), datetime.timedelta(seconds=i)
        s.args.lr, s.cfg.eps = float(i), 0.1 * i
        return (s, X)
    return entry


def test_library_objects_state_and_readers_in_c_stay_plain_pythons():
    for fn in (library_objects, text):
        assert_same(fn, [stepped(i) for i in range(8)], make_state=State)


class Perm(enum.Flag):
    READ = 1
    WRITE = 2


FLAGS = [Perm.READ]


def flagged(x):
    return x * 2.0 if Perm.WRITE in FLAGS[0] else x


def test_an_enum_member_swapped_between_calls():
    def entry(i):
        def make(_):
            FLAGS[0] = Perm.READ | Perm.WRITE if i % 3 == 2 else Perm.READ
            return (X,)
        return make
    assert_same(flagged, [entry(i) for i in range(8)])


class Scaler:
    def __init__(self):
        self.k = 1.0

    def __call__(self, t):
        return t * self.k


def mapped(sc, x):
    return list(map(sc, [x]))[0] + tf.nest.map_structure(sc, {"x": x})["x"]


def test_a_callable_object_map_calls_is_converted():
    def entry(i):
        def make(sc):
            sc.k = 1.0 + i // 3
            return (sc, X)
        return make
    stats = assert_same(mapped, [entry(i) for i in range(8)], make_state=Scaler)
    assert stats.graph_calls >= 2


REVERSAL = [0.0]


@tf.custom_gradient
def reverse(x):
    def grad(dy):
        return -REVERSAL[0] * dy
    return tf.identity(x), grad


@tf.custom_gradient
def clipped(x):
    def grad(dy):
        return tf.clip_by_value(dy, -1.0, 1.0)
    return tf.identity(x), grad


def gradients(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(reverse(x) * 3.0) + tf.reduce_sum(clipped(x) * 5.0)
    return tape.gradient(y, x)


def pure(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clipped(x) * 5.0)
    return tape.gradient(y, x)


def test_a_custom_gradient_reading_a_global_is_not_folded_in():
    def entry(i):
        def make(_):
            REVERSAL[0] = 0.1 * i
            return (X,)
        return make
    assert_same(gradients, [entry(i) for i in range(8)])
    stats = assert_same(pure, [(X * i,) for i in range(8)])
    assert stats.graph_calls >= 3


def written(x):
    config.LR = config.LR * 0.5  # (the module's global: its functions read it as `LR`)
    return x * config.LR + x * config.scaled()


def test_a_module_attribute_written_is_the_module_s_global():
    """(The module is shared by both sides: each runs the whole sequence from LR = 0.1.)"""
    def run(fn):
        config.LR = 0.1
        return [fn(X).numpy().tolist() for _ in range(8)] + [config.LR]
    jitted = janus.jit(written)
    assert run(jitted) == run(written)
    assert janus.stats(jitted).graph_calls >= 3


# -- `dir(obj)`, `isinstance(obj, SomeABC)` / a runtime-checkable Protocol (F219)

def _abc_classes():
    import abc
    import typing

    class Scalable(abc.ABC):
        pass

    @typing.runtime_checkable
    class HasScale(typing.Protocol):
        scale: float

    class Thing:
        def __init__(self):
            self.lr = 0.1

    class Sub(Scalable):
        pass

    return Scalable, HasScale, Thing, Sub


class Things:
    def __init__(self):
        self.Scalable, self.HasScale, Thing, Sub = _abc_classes()  # (one per side)
        self.t, self.sub = Thing(), Sub()


def _change(s, i):
    if i == 3:
        s.t.wd = 0.01
    if i == 4:
        s.Scalable.register(type(s.t))
    if i == 6:
        s.t.scale = 1.0
    return s, X


QUERIES = {
    "dir": lambda s: "wd" in dir(s.t),
    "isinstance of an ABC": lambda s: isinstance(s.t, s.Scalable),
    "issubclass of an ABC": lambda s: issubclass(type(s.t), s.Scalable),
    "isinstance of a Protocol": lambda s: isinstance(s.t, s.HasScale),
    "isinstance of a tuple": lambda s: isinstance(s.t, (int, s.Scalable)),
}


def test_the_answer_an_object_s_class_gives_alone_is_not_folded_in():
    for name, query in QUERIES.items():
        def step(s, x):
            return x * 2.0 if query(s) else x

        assert_same(step, [lambda s, i=i: _change(s, i) for i in range(8)],
                    make_state=Things)


def test_an_abc_among_the_type_s_bases_keeps_graphs():
    def step(s, x):
        return x * 2.0 if isinstance(s.sub, s.Scalable) else x

    stats = assert_same(step, [lambda s, i=i: _change(s, i) for i in range(8)],
                        make_state=Things)
    assert stats.graph_calls >= 5, stats
