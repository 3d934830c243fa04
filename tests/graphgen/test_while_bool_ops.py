"""`while a and b:` / `while not t:` with tensor operands (transform/control_flow.
_combined_test): each operand is a test of its own, so graphs specialize each in Python's
order and short-circuit. Before, the trace asked a tensor operand's truth (`bool()` of a
symbolic tensor): a failed generation, the largest class of them over the fuzz corpus."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.steps = []


def halve_while_both(s, x, n):
    i = tf.constant(0)
    while i < n and tf.reduce_max(x) > 1.0:
        x = x * 0.5
        i = i + 1
    s.steps.append(len(s.steps))
    return x, i


def test_while_and_of_two_tensor_tests():
    calls = [(tf.constant([8.0, 2.0]), 3)] * 5 + [(tf.constant([8.0, 2.0]), 1),
                                                  (tf.constant([0.5, 0.2]), 3),
                                                  (tf.constant([8.0, 2.0]), 3)]
    stats = assert_same(halve_while_both, calls, make_state=State)
    assert stats.graph_calls >= 3 and stats.generation_failures == 0, stats


def until_small(x, flag):
    done = tf.reduce_sum(x) < 1.0
    while not done or (flag and tf.reduce_min(x) > 0.3):
        x = x * 0.5
        done = tf.reduce_sum(x) < 1.0
    return x


def test_while_not_and_or_with_a_python_operand():
    calls = [(tf.constant([2.0, 1.0]), False)] * 4 + [(tf.constant([2.0, 1.0]), True),
                                                      (tf.constant([0.2, 0.1]), False),
                                                      (tf.constant([2.0, 1.0]), False)]
    stats = assert_same(until_small, calls)
    assert stats.graph_calls >= 2, stats  # (the `flag` call reaches a test never profiled)
