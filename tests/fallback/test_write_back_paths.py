"""Class: the write-back after a graph run resolves every heap path against the heap as
it was before the call (fuzz finding F13).

Effects name their targets and the heap objects in their payloads by access paths
(`G_DICT['l']`, `s.box`). They used to be evaluated one effect at a time, after the
earlier effects were written: a dict's contents were cleared before its payload was
rebuilt (`KeyError: 'l'` for `G_DICT.setdefault('l', []).append(k)` in a loop, a janus
internal error after the graph had already run), and an attribute rebound by an earlier
effect redirected a later write (and the returned object) to the new object.
"""
import tensorflow as tf

from tests.differential import assert_same

G_DICT = {}


def setdefault_list_in_loop(x, k):
    acc = x * 0.5
    j = 0
    while j < 2 and tf.reduce_max(x) > 0.0:
        j += 1
        G_DICT["w"] = G_DICT.get("w", 0) + j
        G_DICT.setdefault("l", []).append(k)
        acc = acc * 0.5 + x
    return acc


def test_dict_refilled_with_its_own_items():
    G_DICT.clear()
    calls = [(tf.constant([1.0, 2.0]), k) for k in range(6)]
    stats = assert_same(setdefault_list_in_loop, calls)
    assert stats.graph_calls >= 2


class Box:
    def __init__(self):
        self.box = {"n": 0, "items": [1]}
        self.keep = self.box  # an alias of the first dict


def rebind_then_write_old(s, x):
    old = s.box
    s.box = {"n": 10, "items": []}
    old["n"] = old["n"] + 1
    old["items"].append(len(old["items"]))
    return x * 2.0, old


def test_attribute_rebound_before_the_old_object_is_written():
    calls = [(tf.constant([1.0, 2.0]),)] * 6
    stats = assert_same(rebind_then_write_old, calls, make_state=Box)
    assert stats.graph_calls >= 2


def move_items_between_dicts(s, x):
    key = "items" if "items" in s.box else "moved"
    inner = s.box[key]
    s.box.clear()
    s.box["moved" if key == "items" else "items"] = inner
    inner.append(len(inner))
    return x + 1.0


def test_dict_cleared_and_refilled_with_an_old_item():
    calls = [(tf.constant([1.0]),)] * 5
    stats = assert_same(move_items_between_dicts, calls, make_state=Box)
    assert stats.graph_calls >= 1
