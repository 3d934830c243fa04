"""Heap writes made other than by a method of the container or a statement (F173,
graphgen/container_writes.py): `heapq.heappush(s.queue, ...)`, `bisect.insort(...)`,
`operator.setitem(...)`, `list.append(s.hist, ...)`, `s.hist.__iadd__(...)` changed the
trace's copy and the change was lost after every graph; `object.__setattr__(o, ...)`,
`vars(o)[...] = ...`, `o.__dict__.update(...)` wrote the real object while tracing; a
class attribute the call changed (`Cls.total += 2`) was read through an instance as it was
before. Also a dict keyed by an Enum member (an internal error: janus could not name the
key in a guard). Every test compares janus with plain Python call by call."""
import bisect
import enum
import heapq
import operator

import pytest
import tensorflow as tf

from tests.differential import assert_same


class Box:
    pass


class State:
    def __init__(self):
        self.items = [1, 3, 5]
        self.d = {"a": 0}
        self.box = Box()
        self.box.n = 0


MUTATIONS = {
    "heappush": lambda s: heapq.heappush(s.items, 0),
    "heapreplace": lambda s: heapq.heapreplace(s.items, s.items[0] + 10),
    "insort": lambda s: bisect.insort(s.items, 4),
    "operator.setitem": lambda s: operator.setitem(s.items, 0, s.items[0] + 1),
    "operator.iadd": lambda s: operator.iadd(s.items, [7]),
    "unbound append": lambda s: list.append(s.items, 7),
    "__iadd__": lambda s: s.items.__iadd__([7]),
    "dict.__setitem__": lambda s: dict.__setitem__(s.d, "a", s.d["a"] + 1),
    "object.__setattr__": lambda s: object.__setattr__(s.box, "n", s.box.n + 1),
    "vars": lambda s: vars(s.box).__setitem__("n", s.box.n + 1),
    "__dict__.update": lambda s: s.box.__dict__.update(n=s.box.n + 1),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_container_changed_by_a_function(name):
    mutate = MUTATIONS[name]

    def step(s, x):
        mutate(s)
        return x * len(s.items) + s.items[0] + s.d["a"] + s.box.n

    assert_same(step, [lambda s: (s, tf.constant(1.0))] * 6, make_state=State)


class Classes:
    def __init__(self):
        self.cls = type("Counter", (), {"total": 2})  # (one per side: its own class)
        self.inst = self.cls()


def bump(s, x):
    s.cls.total += 2
    return x * s.inst.total  # (the instance has none: the class's, as just written)


def test_a_class_attribute_changed_then_read_through_an_instance():
    stats = assert_same(bump, [lambda s: (s, tf.constant(1.0))] * 6, make_state=Classes)
    assert stats.graph_calls >= 2, stats


class Mode(enum.Enum):
    TRAIN = 1
    EVAL = 2


class Phases:
    def __init__(self):
        self.counts = {Mode.TRAIN: 0, Mode.EVAL: 0}


def count(p, x, mode):
    p.counts[mode] += 1
    return x * p.counts[mode]


def test_a_dict_keyed_by_an_enum_member():
    calls = [lambda p, i=i: (p, tf.constant(1.0), Mode.TRAIN if i % 3 else Mode.EVAL)
             for i in range(8)]
    assert_same(count, calls, make_state=Phases)
