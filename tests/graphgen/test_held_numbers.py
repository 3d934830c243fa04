"""A number that changes on every call, read by the program's code Keras runs unconverted
(graphgen/held_numbers.py, F295): `x * HP.alpha` in an activation is fed to one graph
(a stand-in while tracing); `tf.nn.leaky_relu(x, alpha=HP.alpha)` (an op's attribute:
no fed value fits) runs that call in Python after a few values, never a graph per value
until the specialization limit."""
import math
import threading
import types

import keras
import tensorflow as tf

import janus
from janus.graphgen.held_numbers import HeldScalar, Holder
from tests.differential import assert_same


class HP:
    alpha = 0.5


HELD = types.ModuleType("held_numbers_cfg")  # (a config module of the program's: `C.ALPHA`)
HELD.ALPHA = 0.5
RECORD = types.SimpleNamespace(scale=1.0)  # (`args.scale`)


def _annealed(i, s, x):
    HP.alpha = HELD.ALPHA = 0.01 * i + 0.05
    RECORD.scale = 1.0 + 0.5 * i
    return (s, x)


def scaled(x):  # (arithmetic on each: fed)
    return tf.nn.relu(x) - x * HP.alpha + HELD.ALPHA * RECORD.scale


def leaky(x):  # (an op's attribute: no fed value fits)
    return tf.nn.leaky_relu(x, alpha=HP.alpha)


def leaky_module(x):
    return tf.nn.leaky_relu(x, alpha=HELD.ALPHA)


def cosine(x):  # (a float's `math`: `float()` of the stand-in)
    return x * math.cos(HP.alpha)


class Model:
    def __init__(self, activation):
        keras.utils.set_random_seed(0)
        HP.alpha = HELD.ALPHA = 0.5
        RECORD.scale = 1.0
        self.model = keras.Sequential([keras.Input((3,)),
                                       keras.layers.Dense(4, activation=activation),
                                       keras.layers.Dense(1)])


def forward(s, x):
    return s.model(x)


def _calls(n=16):
    return [(lambda s, i=i: _annealed(i, s, tf.random.stateless_normal((5, 3), (i, 0))))
            for i in range(n)]


def test_a_held_number_changing_per_call_is_fed_to_one_graph():
    stats = assert_same(forward, _calls(), lambda: Model(scaled))
    assert stats.generations <= 3, stats  # (not one per value)
    assert stats.graph_calls >= 10, stats


def test_a_held_number_janus_cannot_feed_runs_the_call_in_python():
    for activation in (leaky, leaky_module, cosine):
        stats = assert_same(forward, _calls(), lambda: Model(activation))
        assert stats.generations <= 4, (activation.__name__, stats)  # (not 8: the limit)


def test_a_held_number_changed_once_keeps_its_graphs():
    def once(i, s, x):
        HP.alpha = 0.5 if i < 6 else 0.25
        return (s, x)
    calls = [(lambda s, i=i: once(i, s, tf.random.stateless_normal((5, 3), (i, 0))))
             for i in range(12)]
    stats = assert_same(forward, calls, lambda: Model(leaky))
    assert stats.graph_calls >= 7, stats


def test_another_thread_reading_a_held_number_during_the_trace_gets_the_real_one():
    """The stand-in is where the program's state is while janus traces: a data loader or
    logger thread reading the same setting then must see plain Python's number."""
    seen, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            value = HP.alpha
            try:
                seen.append((type(value * 2), f"{value:.3f}" == f"{float(value):.3f}"))
            except Exception as exc:  # noqa: BLE001 - a stand-in's misuse: the failure
                seen.append((type(exc), False))

    step = janus.jit(forward)
    state = Model(scaled)
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for call in _calls(8):
            step(*call(state))
    finally:
        stop.set()
        thread.join()
    assert janus.stats(step).graph_calls >= 3, janus.stats(step)
    assert seen and all(kind is float and same for kind, same in seen), \
        {kind for kind, _ in seen}


def test_a_held_stand_in_answers_other_threads_and_keeps_their_writes():
    HP.alpha = 0.5
    with tf.Graph().as_default():
        holder = Holder(HP, "alpha")
        stand_in = HeldScalar(tf.compat.v1.placeholder(tf.float64, []), float, "r", None,
                              holder.old)
        holder.put(stand_in)
        try:
            answers = {}
            thread = threading.Thread(target=lambda: answers.update(
                product=HP.alpha * 2, reflected=2 - HP.alpha, compared=HP.alpha < 1,
                number=float(HP.alpha), text=f"{HP.alpha:.1f}", rounded=round(HP.alpha, 1)))
            thread.start()
            thread.join()
            assert answers == dict(product=1.0, reflected=1.5, compared=True, number=0.5,
                                   text="0.5", rounded=0.5)
            assert not isinstance(HP.alpha * 2, float)  # (the tracing thread: symbolic)
        finally:
            holder.restore(stand_in)
        assert HP.alpha == 0.5
        holder.put(stand_in)
        thread = threading.Thread(target=lambda: setattr(HP, "alpha", 0.7))
        thread.start()
        thread.join()
        holder.restore(stand_in)  # (another thread wrote meanwhile: its write stays)
        assert HP.alpha == 0.7
    HP.alpha = 0.5
