"""Converted code's temporaries let a stored value go once stored (F443): `a[i] = v`
became `tmp = v; st_item(a, i, tmp)`, and `tmp` kept `v` until the call returned, where
Python keeps it only in `a`: a value replaced later in the call (`a[i] = w`) died at the
call's end, its `__del__` late (a profiled call, a split run, a mixed run)."""
import pytest
import tensorflow as tf

from tests.differential import assert_same
from tests.freed import Freed as Buf

X = tf.constant([1.0, 2.0])
pytestmark = pytest.mark.usefixtures("no_collector")


class State:
    def __init__(self):
        self.freed = 0
        self.slot = [None]
        self.pair = [None, None]


def test_an_item_replaced_later_in_the_call_dies_at_the_replacement():
    # (before: `freed` read after the replacement 0, where Python has 1)
    def step(s, x):
        s.slot[0] = Buf(s, 1.0)
        y = x * float(s.freed)
        s.slot[0] = Buf(s, 2.0)
        return y + float(s.freed)

    assert_same(step, [(X,)] * 3, make_state=State)


def test_unpacked_items_replaced_later_in_the_call_die_at_the_replacement():
    def step(s, x):
        s.pair[0], s.pair[1] = Buf(s, 1.0), Buf(s, 2.0)
        s.pair[0] = s.pair[1] = None
        return x * float(s.freed)

    assert_same(step, [(X,)] * 3, make_state=State)


def test_an_augmented_attribute_s_object_dies_with_its_last_name():
    # (`b.value += 1.0`: a temporary held `b` past `del b`)
    def step(s, x):
        b = Buf(s, 1.0)
        b.value += 1.0
        del b
        return x * float(s.freed)

    assert_same(step, [(X,)] * 3, make_state=State)
