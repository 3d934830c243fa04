"""A trace that raises the user's own exception (a `raise` on this call's values, a
library refusing them) runs the call plainly, which raises it too: the call's error, not
a failed generation (janus/generation.py `RaisedInTrace`). Before, three such calls made
janus give up on the function: every later call ran eagerly (zoo p55: 12.2 ms vs eager's
3.1 ms, now 0.6 ms). Compared with plain Python call by call."""
import pytest
import tensorflow as tf

from janus import generation
from tests.differential import assert_same

W = tf.Variable(tf.ones([4, 4]) * 0.1)


def checked(x, width):
    if x.shape[-1] != width:
        raise ValueError(f"expected {width} features, got {x.shape[-1]}")
    h = x
    for _ in range(3):
        h = tf.tanh(tf.matmul(h, W))
    return tf.reduce_sum(h)


def test_calls_that_raise_now_and_then_do_not_make_janus_give_up():
    good, bad = tf.ones([2, 4]), tf.ones([2, 3])
    calls = [(good, 4), (good, 4), (bad, 4), (good, 4), (bad, 4), (good, 4), (bad, 4),
             (good, 4), (bad, 4), (good, 4), (good, 4), (bad, 4), (good, 4), (good, 4)]
    stats = assert_same(checked, calls)
    assert stats.graph_calls >= 6, stats


def bounded(x, xs, n):
    assert len(xs) < 1, f"too many items: {len(xs)}"
    return x * 0.5 + float(n)


def test_a_message_formatted_from_a_value_the_graph_knows():
    """Fuzz v60 (seed 2190013, in a weighted run): the trace raised AssertionError whose
    message was formatted from `len(xs)` (a length janus feeds: text holding a marker,
    whose reads refuse); janus's own description of it (`str(error)[:200]`) raised a
    ConversionError into the user's program instead of running the call plainly."""
    x = tf.constant([1.0, 2.0])
    item = tf.constant([0.5, 0.5])
    calls = [(x, [], 1)] * 3 + [(x, [item, item], 1)] * 2 + [(x, [item] * 3, 0),
                                                              (x, [], 0), (x, [item], 2)]
    assert_same(bounded, calls)


# -- functions whose calls keep raising are not traced on every call (F275) ---------------

@pytest.fixture
def traces(monkeypatch):
    """The traces janus makes (each call of graphgen's `generate`)."""
    made = []
    original = generation.generate

    def counting(*args, **kwargs):
        made.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(generation, "generate", counting)
    return made


def always_raises(x):
    y = tf.matmul(x, W)
    raise ValueError(f"bad batch {x.shape}")


def test_a_function_that_raises_on_every_call_is_traced_once(traces):
    stats = assert_same(always_raises, [(tf.ones([2, 4]) * i,) for i in range(40)])
    assert len(traces) == 1 and stats.generation_failures == 0, (len(traces), stats)


def test_calls_of_two_shapes_that_both_raise_are_traced_once_each(traces):
    calls = [(tf.ones([2 + i % 2, 4]),) for i in range(40)]
    assert_same(always_raises, calls)
    assert len(traces) <= 3, len(traces)  # (and the general plan's: its text refuses)


class Warming:
    def __init__(self):
        self.ready = False


def raises_while_warming(s, x):
    if not s.ready:
        raise RuntimeError("not ready")
    return tf.reduce_sum(tf.matmul(x, W))


def test_calls_alike_that_raise_every_other_time_are_traced_rarely(traces):
    """Calls janus cannot tell apart before running them (the heap decides): the quiet
    while after each raising trace doubles, then lasts as long as the trace costs 20
    plain calls' time."""
    def call(s, i):
        s.ready = i % 2 == 0
        return s, tf.ones([2, 4])

    assert_same(raises_while_warming, [lambda s, i=i: call(s, i) for i in range(60)],
                make_state=Warming)
    assert len(traces) <= 7, len(traces)


def test_a_function_that_stops_raising_gets_its_graph():
    def call(s, i):
        s.ready = i >= 8
        return s, tf.ones([2, 4])

    stats = assert_same(raises_while_warming, [lambda s, i=i: call(s, i) for i in range(24)],
                        make_state=Warming)
    assert stats.graph_calls >= 12, stats


def test_calls_that_raise_now_and_then_keep_their_graphs_after_many(traces):
    good, bad = tf.ones([2, 4]), tf.ones([2, 3])
    calls = [(bad if i % 3 == 2 else good, 4) for i in range(45)]
    stats = assert_same(checked, calls)
    assert stats.graph_calls >= 25 and len(traces) <= 3, (len(traces), stats)
