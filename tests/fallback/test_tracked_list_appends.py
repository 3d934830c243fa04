"""A Keras layer's list attribute (Keras wraps it in a TrackedList) only appended to:
janus writes the items a graph appended back by the calls the function made. Written
back with one `extend`, dicts the function `append`ed came back as Keras TrackedDicts
(TrackedList.extend wraps them, append does not): the heap differed from plain Python's
(zoo p64's history of per-tower norms)."""
import keras
import pytest
import tensorflow as tf

import janus

GROWTHS = {
    "append": lambda log, y: log.append({"y": y}),
    "extend": lambda log, y: log.extend([{"y": y}, {"z": y}]),
    "both": lambda log, y: (log.append({"y": y}), log.extend([{"z": y}])),
}


def _model(grow):
    class Logged(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)
            self.log = []

        def call(self, x):
            return self.dense(x)

        def step(self, x):
            y = tf.reduce_sum(self(x))
            grow(self.log, y)
            return y
    return Logged


@pytest.mark.parametrize("name", sorted(GROWTHS))
def test_items_appended_by_a_graph_keep_their_types(name):
    Logged = _model(GROWTHS[name])
    plain = Logged()
    Jitted = type("Jitted", (Logged,), {"step": janus.jit(Logged.step)})
    jitted = Jitted()
    for i in range(10):
        x = tf.ones([2 + i % 2, 3]) * float(i)
        plain.step(x)
        jitted.step(x)
        assert [type(e) for e in jitted.log] == [type(e) for e in plain.log], i
        assert type(jitted.log) is type(plain.log)
    assert janus.stats(Jitted.step).graph_calls >= 5, janus.stats(Jitted.step)


class Blocks(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = [keras.layers.Dense(2)]  # (holds a layer: janus cannot copy it)
        self.seen = []


def grow_in_place(layer, x, n):
    layer.blocks += [n]  # (the trace changed the real list, then refused: twice, F164)
    return x * 2.0


def reassign_extended(layer, x, n):
    layer.seen += [{"n": n, "v": x * 0.5}]  # (a new TrackedList; the extend goes to it)
    layer.seen.extend([[tf.reduce_max(x)], {"k": n}])
    return x


@pytest.mark.parametrize("fn", [grow_in_place, reassign_extended])
def test_a_layer_s_list_changed_by_reassignment_or_in_place(fn):
    plain, jitted_layer, jitted = Blocks(), Blocks(), janus.jit(fn)
    for i in range(6):
        x = tf.constant([1.0, float(i)])
        fn(plain, x, i)
        jitted(jitted_layer, x, i)
        for name in ("blocks", "seen"):
            ours, theirs = getattr(jitted_layer, name), getattr(plain, name)
            assert len(ours) == len(theirs), (i, name)
            assert [type(v) for v in ours] == [type(v) for v in theirs], (i, name)
