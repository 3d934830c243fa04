"""A Keras layer of the user's own class called in converted code has its `call`
converted too (graphgen/layer_calls.py): its heap writes happen on every call (before,
once at trace time, and a failed trace's writes stayed), its tensor tests become graph
control flow. Every test compares janus with plain Python call by call."""
import keras
import tensorflow as tf

import janus
from tests.differential import assert_same


class Counting(keras.layers.Layer):
    """Counts its calls in a Python int; halves large outputs (a tensor test)."""

    def __init__(self, units=4, name="counting"):
        super().__init__(name=name)  # (named: the two sides' layers compare equal)
        self.units = units
        self.calls = 0

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], self.units), initializer="ones")

    def call(self, x):
        self.calls += 1
        y = tf.matmul(x, self.w)
        if tf.reduce_sum(y) > 10.0:
            y = y * 0.5
        return y


class Logging(keras.layers.Layer):
    """Appends to a list Keras tracks (a TrackedList): copied like a list."""

    def __init__(self):
        super().__init__(name="logging")
        self.log = []

    def call(self, x):
        self.log.append(len(self.log))
        return x * 2.0


class Checking(keras.layers.Layer):
    def __init__(self):
        super().__init__(name="checking")

    def call(self, x):
        if x.shape[-1] != 3:
            raise ValueError(f"expected 3 features, got {x.shape[-1]}")
        return x + 1.0


class Scaling(keras.layers.Layer):
    """Counts its calls; no tensor test (Keras infers a Sequential's shapes symbolically)."""

    def __init__(self, name="scaling"):
        super().__init__(name=name)
        self.calls = 0

    def call(self, x):
        self.calls += 1
        return x * (1.0 + 0.5 * self.calls)


class Holder:
    def __init__(self, layer):
        self.layer = layer


def step(s, x):
    return tf.reduce_sum(s.layer(x))


def _x(i, features=3):
    return (tf.ones([2, features]) * float(i % 3),)


def test_a_layer_s_python_counter_moves_on_every_call_and_its_tensor_test_is_a_graph():
    stats = assert_same(step, [_x(i) for i in range(10)], lambda: Holder(Counting()))
    assert stats.graph_calls >= 4, stats


def test_layers_of_a_sequential_and_of_a_model_are_converted():
    class Model(keras.Model):
        def __init__(self):
            super().__init__(name="model")
            self.inner = Counting(3, name="inner")
            self.stack = keras.Sequential(
                [Scaling(), keras.layers.Dense(2, kernel_initializer="ones", name="dense")],
                name="stack")

        def call(self, x):
            return self.stack(self.inner(x))

    stats = assert_same(step, [_x(i) for i in range(10)], lambda: Holder(Model()))
    assert stats.graph_calls >= 4, stats


def test_a_tracked_list_appended_in_call_changes_once_per_call():
    """Keras wraps a list assigned to a layer (a TrackedList): it is copied like a list
    and written back; before, the graph's trace appended once (and a failed trace's
    append stayed)."""
    stats = assert_same(step, [_x(i) for i in range(8)], lambda: Holder(Logging()))
    assert stats.graph_calls >= 3, stats


class Blocks(keras.layers.Layer):
    """Sublayers in a list (Keras tracks it) and a Python list of data read by length."""

    def __init__(self):
        super().__init__(name="blocks")
        self.blocks = [Scaling("b0"), Scaling("b1")]
        self.history = []

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return x * float(len(self.history) + 1)


def test_tracked_lists_read_in_call_are_guarded_by_length_and_items():
    """`len(self.history)`, appended between calls, was read once and baked into the
    graph; a sublayer replaced in `self.blocks` kept the old one."""
    def grow(s):
        s.layer.history.append(len(s.layer.history))
        if len(s.layer.history) == 5:
            s.layer.blocks[1] = Scaling("b2")
        return (s, *_x(len(s.layer.history)))

    stats = assert_same(step, [grow] * 9, lambda: Holder(Blocks()))
    assert stats.graph_calls >= 3, stats


def test_an_error_raised_in_call_is_the_user_s():
    calls = [_x(i) for i in range(5)] + [_x(1, features=4)] + [_x(i) for i in range(3)]
    assert_same(step, calls, lambda: Holder(Checking()))


def test_the_shadow_is_gone_after_the_call():
    holder = Holder(Counting())
    jitted = janus.jit(step)
    for i in range(6):
        jitted(holder, *_x(i))
    assert "call" not in holder.layer.__dict__
    assert janus.stats(jitted).graph_calls >= 2


class Sizes(keras.layers.Layer):
    def __init__(self):
        super().__init__(name="sizes")
        self.sizes = []

    def call(self, x):
        self.sizes.append(int(x.shape[0]))
        return x * 2.0


def test_a_tracked_list_only_appended_to_keeps_one_graph():
    """`self.sizes.append(...)` in `call`: no length assumed (as for a plain list), not a
    graph per length until the limit (zoo p58)."""
    stats = assert_same(step, [_x(i) for i in range(12)], lambda: Holder(Sizes()))
    assert stats.generations <= 3 and stats.graph_calls >= 6, stats


class DropHolder:
    def __init__(self):
        self.layer = keras.Sequential([keras.Input((3,)), keras.layers.Rescaling(1.0, name="rs")])


def rate_of_a_layer_handed_out(s, x):
    return tf.reduce_sum(s.layer(x)) * s.layer.get_layer("rs").offset


def test_a_setting_of_a_layer_a_library_call_handed_out_is_not_baked_in():
    """`model.get_layer("rs").offset` changed between calls: janus cannot locate the layer
    `get_layer` returns, so no guard could check the rate; the graph kept the trace's."""
    def vary(k):
        def call(s):
            s.layer.get_layer("rs").offset = 0.1 * k
            return (s, tf.ones([1, 3]))
        return call

    assert_same(rate_of_a_layer_handed_out, [vary(k % 4) for k in range(8)], DropHolder)
