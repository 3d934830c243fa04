"""Library code a trace runs that changes host state a graph would not change on each
call (graphgen/host_state.py): Keras seeds a layer it builds from Python's `random` and
numbers its name. The trace is refused and the state put back: the user's `random` stream
and later layers' names stay plain Python's. Both sides run the same sequence from the
same seed and Keras session; results, draws and names are compared."""
import random
import threading

import keras
from keras.src.random import seed_generator
import numpy as np
import pytest
import tensorflow as tf

import janus
from tests.threads_helpers import meet_each_call


def fresh_head(s, x):
    if s["n"] % 3 == 0:
        s["drop"] = keras.layers.Dropout(0.5)  # a new head every 3 steps
    s["n"] += 1
    return tf.reduce_sum(s["drop"](x, training=True))


def local_layer(s, x):
    layer = keras.layers.Dense(2, kernel_initializer="ones")  # (built per call, dropped)
    s["names"].append(layer.name)
    return tf.reduce_sum(layer(x))


def _run(fn):
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    state = {"n": 0, "names": []}
    outs, draws = [], []
    for i in range(9):
        outs.append(float(fn(state, tf.ones((4, 3)) * (i + 1))))
        draws.append(random.random())
    return outs, draws, state["names"]


def test_library_code_drawing_from_python_random_or_naming_layers_stays_plain_pythons():
    for fn in (fresh_head, local_layer):
        plain, jitted = _run(fn), _run(janus.jit(fn))
        np.testing.assert_allclose(jitted[0], plain[0], rtol=1e-6)
        assert jitted[1:] == plain[1:]


def _loader_draws_while_tracing(jit, build_in_step: bool):
    """A loader thread draws from Python's `random` while the main thread's step is traced
    (it waits inside the step's library call): its draws are never rewound (no draw
    repeated) nor blamed on the step (F372); a step whose library code draws itself (Keras
    makes a default seed from `random`) is refused as before, its draws still once each."""
    keras.backend.clear_session()
    random.seed(0)
    draws = []
    meet, current = threading.Barrier(2, timeout=120), [0]
    layer = keras.layers.Dense(3, kernel_initializer="ones")

    def step(x, sync):
        sync()  # (a library call: runs as it is, also while janus traces)
        sync()  # (the loader drew in between)
        y = layer(x)
        if build_in_step:
            y = y + float(seed_generator.make_default_seed() % 2)
        return tf.reduce_sum(y * 2.0)
    g = jit(step)
    thread = threading.Thread(target=meet_each_call, args=(
        meet, current, lambda: draws.extend(random.random() for _ in range(25))))
    thread.start()
    outs = []
    for i in range(6):
        current[0] = i
        outs.append(float(g(tf.ones([2, 4]) * i, meet.wait)))
    current[0] = None
    meet.wait()
    thread.join(timeout=300)
    assert not thread.is_alive()
    return outs, draws, g


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_loader_threads_random_draws_during_a_trace_are_its_own():
    for build_in_step in (False, True):
        plain_outs, plain_draws, _ = _loader_draws_while_tracing(lambda f: f, build_in_step)
        for _ in range(3):  # (threads: several runs)
            outs, draws, g = _loader_draws_while_tracing(janus.jit, build_in_step)
            assert outs == plain_outs
            assert len(set(draws)) == len(draws) == 150
            assert draws == plain_draws
            why = str(g.last_failure_reason or "")
            assert ("random" in why) == build_in_step, why


def relu_layer_per_call(x):
    h = tf.tanh(x) * 2.0 + 1.0
    act = keras.layers.Activation("relu")  # (named per call: the break, at this line)
    return tf.reduce_sum(act(h) * h)


def test_the_refusal_names_the_line_that_numbered_a_name(capsys):
    """The refusal is located at the step's line whose library call numbered the name
    (not at no line): the split breaks there only, and the results stay plain's."""
    keras.backend.clear_session()
    plain = [float(relu_layer_per_call(tf.ones([2, 4]) * i)) for i in range(6)]
    jitted = janus.jit(relu_layer_per_call)
    got = [float(jitted(tf.ones([2, 4]) * i)) for i in range(6)]
    assert got == plain
    janus.explain(jitted, tf.ones([2, 4]))
    shown = capsys.readouterr().out
    assert 'break at' in shown and 'act = keras.layers.Activation("relu")' in shown
