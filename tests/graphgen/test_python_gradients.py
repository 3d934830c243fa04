"""A graph whose custom gradient reads the program's state, called under the caller's
tape: TF builds the graph's backward once, when the tape first asks, running the
gradient function then (after janus's trace) and keeping what it read for every later
call; such a call runs plainly under a caller's tape (F341,
graphgen/python_gradients.py). Compared with plain Python call by call."""
import tensorflow as tf

import janus

LAM = 1.0


class Holder:
    def __init__(self):
        self.lam = 1.0


HOLDER = Holder()


@tf.custom_gradient
def reverse(x):
    return tf.identity(x), lambda dy: -LAM * dy


@tf.custom_gradient
def reverse_by_holder(x):
    def grad(dy):
        return -HOLDER.lam * dy
    return tf.identity(x), grad


@tf.custom_gradient
def straight_through(x):
    return tf.round(x), lambda dy: dy


def forward(x):
    return tf.reduce_sum(reverse(x) * 2.0) + tf.reduce_sum(reverse_by_holder(x))


def forward_straight(x):
    return tf.reduce_sum(straight_through(x) * 2.0)


def _gradient(fn, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x).numpy().tolist()


def test_a_custom_gradient_reading_a_changing_global_under_the_callers_tape():
    global LAM
    jitted = janus.jit(forward)
    x = tf.constant([1.0, 2.0])
    try:
        for i in range(10):
            LAM, HOLDER.lam = float(i), 0.5 * i
            assert _gradient(jitted, x) == _gradient(forward, x), i
    finally:
        LAM, HOLDER.lam = 1.0, 1.0


def test_a_custom_gradient_reading_nothing_stays_a_graph_under_the_callers_tape():
    jitted = janus.jit(forward_straight)
    for i in range(8):
        x = tf.constant([0.25 * i, 2.0])
        assert _gradient(jitted, x) == _gradient(forward_straight, x), i
    assert janus.stats(jitted).graph_calls >= 4, janus.stats(jitted)


def test_inside_the_traced_function_the_tape_keeps_graphs():
    """The same gradient differentiated inside the jitted function: a graph, the changed
    global reaching it (guarded while janus traces)."""
    global LAM

    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = forward(x)
        return tape.gradient(y, x)
    jitted = janus.jit(step)
    x = tf.constant([1.0, 2.0])
    try:
        for i in range(10):
            LAM, HOLDER.lam = (1.0 if i < 4 else 2.0), 1.0
            assert jitted(x).numpy().tolist() == step(x).numpy().tolist(), i
        assert janus.stats(jitted).graph_calls >= 5, janus.stats(jitted)
    finally:
        LAM, HOLDER.lam = 1.0, 1.0
