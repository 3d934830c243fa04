"""Enum members as container keys (F426): `s.by_split[Split.TRAIN]`, `metrics[Mode.EVAL] +=
loss`, `counts[Color.RED]` on the heap, in globals and in dicts made in the step run as
graphs, with Python's hash/== semantics (`d[1]` and `d[Color.RED]` are one entry of an
IntEnum) and keys guarded by type as well as value (`{1: ...}` is not `{Color.RED: ...}`).
Each test compares janus with plain Python call by call."""
import dataclasses
import enum
import re
import types

import pytest
import tensorflow as tf

from janus.graphgen import sources
from tests.cache.enum_keys_program import Color, Mode, Split  # (the warm start's too)
from tests.differential import assert_same


class Perm(enum.Flag):
    R = 1
    W = 2


class Loud(enum.Enum):
    A = 1

    def __hash__(self):
        return 7

    def __eq__(self, other):
        return self is other


@dataclasses.dataclass(frozen=True)
class Slot:
    name: str


def _xs(n=6):
    return [(tf.constant(float(k) + 0.5),) for k in range(n)]


class State:
    def __init__(self):
        self.by_split = {Split.TRAIN: tf.Variable(1.0), Split.EVAL: tf.Variable(2.0)}
        self.metrics = {Mode.TRAIN: 0.0, Mode.EVAL: 0.0}
        self.counts = {Color.RED: 0, Color.BLUE: 5}
        self.perm = {Perm.R: 1.0, Perm.W: 2.0, Perm.R | Perm.W: 3.0}
        self.pairs = {(Split.TRAIN, Color.RED): 4.0, (Split.EVAL, Color.RED): 5.0}


def heap_step(s, x):
    v = s.by_split[Split.TRAIN]
    v.assign_add(x)
    s.metrics[Mode.EVAL] += 1.5
    s.counts[Color.RED] += 1
    local = {Color.BLUE: x, Split.EVAL: 2.0}
    y = x * s.perm[Perm.W] + s.perm[Perm.R | Perm.W] + s.pairs[(Split.EVAL, Color.RED)]
    return v + local[Color.BLUE] * local[Split.EVAL] + y, local


def test_enum_keys_on_the_heap_run_as_graphs():
    stats = assert_same(heap_step, _xs(), State)
    assert stats.graph_calls >= 3, stats


WEIGHTS = {Split.TRAIN: tf.constant(3.0), Split.EVAL: tf.constant(0.5)}


def global_read(x):
    return x * WEIGHTS[Split.TRAIN] + WEIGHTS[Split.EVAL]


def test_enum_keys_of_a_global_dict_run_as_graphs():
    stats = assert_same(global_read, _xs())
    assert stats.graph_calls >= 3, stats


def int_and_member(s, x):
    s.counts[1] += 10           # the same entry as Color.RED's (1 == Color.RED)
    s.metrics["eval"] -= 0.25   # the same entry as Mode.EVAL's
    return x * s.counts[Color.RED] + s.metrics[Mode.EVAL]


def test_an_int_key_and_its_int_enum_member_are_one_entry():
    stats = assert_same(int_and_member, _xs(), State)
    assert stats.graph_calls >= 3, stats


def keys_out(d, x):
    return x * d[Color.RED], list(d), [type(k).__name__ for k in d]


def test_keys_are_guarded_by_type_not_only_by_value():
    members, ints = {Color.RED: 2.0, Color.BLUE: 3.0}, {1: 2.0, 2: 3.0}
    calls = [(members, x) for (x,) in _xs(5)] + [(ints, tf.constant(1.0)),
                                                 (members, tf.constant(2.0))]
    stats = assert_same(keys_out, calls)
    assert stats.graph_calls >= 3, stats


def argument_key(s, mode, x):
    s.metrics[mode] += 1.0
    return x + s.metrics[mode]


def test_a_member_passed_as_argument_names_its_entry():
    calls = [(Mode.TRAIN, x) for (x,) in _xs(4)] + [(Mode.EVAL, tf.constant(1.0)),
                                                    ("train", tf.constant(2.0)),
                                                    (Mode.TRAIN, tf.constant(3.0))]
    stats = assert_same(argument_key, calls, State)
    assert stats.graph_calls >= 3, stats


def test_a_member_key_renders_through_the_key_table():
    source = sources.arg(0).attr("by_split").item(Split.TRAIN).item((Split.EVAL, 2))
    # (`Split.TRAIN@<id>` when another class named Split came first: tests/cache's)
    names = re.fullmatch(r"args\[0\]\.by_split\[KEY\['(Split\.TRAIN(?:@\d+)?)'\]\]"
                         r"\[\(KEY\['(Split\.EVAL(?:@\d+)?)'\], 2, \)\]", source.expr)
    assert names, source.expr
    assert sources.ENUM_KEYS[names[1]] is Split.TRAIN and \
        sources.ENUM_KEYS[names[2]] is Split.EVAL
    heap = types.SimpleNamespace(by_split={Split.TRAIN: {(Split.EVAL, 2): "x"}})
    assert sources.evaluate(source, (heap,), {}, {}, ()) == "x"
    again = sources.Source.from_json(source.to_json())
    assert again == source and again.steps[1][1] is Split.TRAIN
    assert source.to_json()["steps"][1][1] == {"enum": [Split.__module__, "Split", "TRAIN"]}


def test_members_of_classes_that_hash_as_the_program_says_are_not_named():
    with pytest.raises(sources.UnnamedKey):
        sources.arg(0).item(Loud.A)
    with pytest.raises(sources.UnnamedKey):  # (a frozen dataclass's: OPEN, F426)
        sources.arg(0).item(Slot("a"))


def test_a_recorded_member_is_found_only_in_imported_modules():
    with pytest.raises(sources.UnresolvedKey):
        sources.key_from_json({"enum": ["not_imported_module_xyz", "Split", "TRAIN"]})
    with pytest.raises(sources.UnresolvedKey):
        sources.key_from_json({"enum": [Split.__module__, "Split", "TEST"]})
    with pytest.raises(sources.UnresolvedKey):  # (a class, not an Enum)
        sources.key_from_json({"enum": [Split.__module__, "State", "TRAIN"]})
    with pytest.raises(sources.SourceError):
        sources.key_from_json({"enum": [Split.__module__, "Split.__class__", "TRAIN"]})
    with pytest.raises(sources.SourceError):  # (a combined Flag has no name to find)
        sources.key_to_json(Perm.R | Perm.W)

    def local():
        class Local(enum.Enum):
            A = 1
        return Local.A
    with pytest.raises(sources.SourceError):
        sources.key_to_json(local())


def loud_key(x):
    return x * {Loud.A: 2.0}[Loud.A]


def test_a_member_with_its_own_hash_runs_plainly_and_agrees():
    assert_same(loud_key, _xs(4))
