"""Class (F407): operators, comparisons, truth tests, formatting, hashing, unpacking and
the builtins janus counts as pure (`len`, `str`, ...) run the program's dunders with no
hook. A profiled call (or the eager rerun after an in-graph guard failed) that ran one
with an effect and then raised was rerun plainly: the effect made twice (`meter + x`
counting, then `raise`: 2 where plain Python has 1).
"""
import dataclasses
import gc
import weakref

import pytest
import tensorflow as tf

import janus
from janus.fallback import hidden_effects
from tests.differential import assert_same


class Meter:
    """The program's object: every dunder counts its use."""

    def __init__(self):
        self.n = 0

    def _count(self, value):
        self.n += 1
        return value

    def __add__(self, other):
        return self._count(other)

    def __radd__(self, other):
        return self._count(other)

    def __iadd__(self, other):
        return self._count(self)

    def __neg__(self):
        return self._count(0.0)

    def __lt__(self, other):
        return self._count(True)

    def __eq__(self, other):
        return self._count(other is self)

    def __hash__(self):
        return self._count(7)

    def __bool__(self):
        return self._count(True)

    def __len__(self):
        return self._count(2)

    def __iter__(self):
        return self._count(iter((1.0, 2.0)))

    def __contains__(self, item):
        return self._count(False)

    def __str__(self):
        return self._count("meter")

    def __repr__(self):
        return self._count("Meter()")

    def __format__(self, spec):
        return self._count("m")

    def __enter__(self):
        return self._count(self)

    def __exit__(self, *exc_info):
        return self._count(False)


class State:
    def __init__(self):
        self.meter = Meter()


METER = Meter()  # (a global: read through ld_global)


def _then(loss, limit):
    if loss > limit:
        raise FloatingPointError("diverged")
    return loss


def add(s, x, limit):
    y = s.meter + 1.0
    return _then(tf.reduce_sum(x) * y, limit)


def radd(s, x, limit):
    y = 1.0 + s.meter
    return _then(tf.reduce_sum(x) * y, limit)


def iadd(s, x, limit):
    m = s.meter
    m += 1.0
    return _then(tf.reduce_sum(x), limit)


def neg(s, x, limit):
    y = -s.meter
    return _then(tf.reduce_sum(x) + y, limit)


def less(s, x, limit):
    y = s.meter < 3
    return _then(tf.reduce_sum(x) * float(y), limit)


def equal(s, x, limit):
    y = s.meter == 3
    return _then(tf.reduce_sum(x) + float(y), limit)


def truth(s, x, limit):
    y = 1.0 if s.meter else 2.0
    return _then(tf.reduce_sum(x) * y, limit)


def length(s, x, limit):
    y = len(s.meter)
    return _then(tf.reduce_sum(x) * y, limit)


def unpack(s, x, limit):
    a, b = s.meter
    return _then(tf.reduce_sum(x) * a + b, limit)


def contains(s, x, limit):
    y = 3 in s.meter
    return _then(tf.reduce_sum(x) + float(y), limit)


def text(s, x, limit):
    y = str(s.meter) + repr(s.meter)
    return _then(tf.reduce_sum(x) * len(y), limit)


def formatted(s, x, limit):
    y = f"{s.meter:>4}"
    return _then(tf.reduce_sum(x) * len(y), limit)


def hashed(s, x, limit):
    y = {s.meter: 1.0}
    return _then(tf.reduce_sum(x) * len(y), limit)


def managed(s, x, limit):
    with s.meter:
        loss = tf.reduce_sum(x)
    return _then(loss, limit)


def global_meter(s, x, limit):
    y = METER + 1.0
    return _then(tf.reduce_sum(x) * y, limit)


def in_a_list(s, x, limit):
    meters = [s.meter]  # (a list of the program's objects, its item read plainly)
    y = sum(m + 1.0 for m in meters)
    return _then(tf.reduce_sum(x) * y, limit)


def argument(meter, x, limit):
    y = meter + 1.0
    return _then(tf.reduce_sum(x) * y, limit)


_CALLS = [(tf.constant([1.0, 2.0]), tf.constant(100.0)),
          (tf.constant([3.0, 4.0]), tf.constant(0.0)),   # raises at profiling
          (tf.constant([1.0, 1.0]), tf.constant(100.0)),
          (tf.constant([2.0, 1.0]), tf.constant(100.0)),
          (tf.constant([2.0, 2.0]), tf.constant(100.0)),
          (tf.constant([5.0, 1.0]), tf.constant(0.0)),   # an in-graph guard fails
          (tf.constant([1.0, 2.0]), tf.constant(100.0))]


@pytest.mark.parametrize("step", [add, radd, iadd, neg, less, equal, truth, length, unpack,
                                  contains, text, formatted, hashed, managed, in_a_list],
                         ids=lambda step: step.__name__)
def test_a_dunder_of_the_program_before_a_raise_runs_once(step):
    assert_same(step, _CALLS, make_state=State)


def test_a_global_of_the_programs_class_before_a_raise_runs_once():
    def count():
        return METER.n

    plain_counts, janus_counts = [], []
    jitted = janus.jit(global_meter)
    for fn, counts in ((global_meter, plain_counts), (jitted, janus_counts)):
        for x, limit in _CALLS:
            before = count()
            try:
                fn(None, x, limit)
            except FloatingPointError:
                pass
            counts.append(count() - before)
    assert janus_counts == plain_counts


def test_an_argument_of_the_programs_class_before_a_raise_runs_once():
    assert_same(argument, _CALLS, make_state=Meter)  # (the state is the first argument)


def test_what_may_run_the_programs_code():
    @dataclasses.dataclass
    class Point:  # (generated __init__/__eq__/__repr__: not the program's code)
        x: float = 0.0

    class Plain:
        def __init__(self):
            self.a = 1

        def __call__(self):  # (through janus's call hook)
            return self.a

    assert hidden_effects.value_runs_users_code(Meter())
    assert hidden_effects.value_runs_users_code([1.0, (2.0, Meter())])
    assert hidden_effects.value_runs_users_code({"m": Meter()})
    assert not hidden_effects.value_runs_users_code(Point())
    assert not hidden_effects.value_runs_users_code(Plain())
    assert not hidden_effects.value_runs_users_code(State())  # (its attribute is read by a hook)
    assert not hidden_effects.value_runs_users_code(tf.constant(1.0))
    assert not hidden_effects.value_runs_users_code([1.0, "a", {"b": 2}])
    assert not hidden_effects.value_runs_users_code(tf)


def test_a_class_made_in_a_call_is_not_kept_alive_by_the_check():
    def make():
        class Made:
            def __add__(self, other):
                return other
        return Made

    made = make()
    alive = weakref.ref(made)
    assert hidden_effects.value_runs_users_code(made())
    assert hidden_effects.value_runs_users_code(made())  # (remembered)
    del made
    gc.collect()
    assert alive() is None
