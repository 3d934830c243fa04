"""`tf.config.run_functions_eagerly(True)` and the program's `tf.function`s (session 28,
probes, F246): plain TF runs their Python on every call while the flag is on; a graph
janus made with the flag off guards it, and while it is on the call runs plainly."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.calls = 0
        self.helper = tf.function(self._helper)

    def _helper(self, x):
        self.calls += 1
        print("helper", self.calls)
        return x * 2.0


def step(s, x):
    return s.helper(x) + 1.0


def _eagerly(on, s, x):
    tf.config.run_functions_eagerly(on)
    return (s, x)


def _run(flags):
    calls = [(lambda s, i=i, on=on: _eagerly(on, s, tf.constant([float(i)])))
             for i, on in enumerate(flags)]
    try:
        return assert_same(step, calls, State, observe=lambda s: s.calls)
    finally:
        tf.config.run_functions_eagerly(False)


def test_functions_run_eagerly_runs_the_body_per_call():
    _run([True] * 8)


def test_functions_run_eagerly_toggled_between_calls():
    stats = _run([False] * 5 + [True] * 3 + [False] * 4)
    assert stats.graph_calls >= 4
