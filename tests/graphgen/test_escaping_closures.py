"""Class: a function made while janus traces (a nested def, a lambda) must not leave the
graph: its closure holds the trace's symbolic tensors.

Returned or stored on the heap, it used to be handed back as it was: calling it later
failed with "<tf.Tensor 'mul:0'> is out of scope". Such a call now runs eagerly.
"""
import tensorflow as tf

from tests.differential import assert_same


class Holder:
    def __init__(self):
        self.cb = None
        self.cbs = []


def store_and_call(s, x):
    previous = s.cb() if s.cb is not None else x
    y = x * 2.0

    def later():
        return y + 1.0
    s.cb = later
    return previous


def append_lambda_and_call(s, x):
    y = x * 3.0
    s.cbs.append(lambda: y - 1.0)
    return s.cbs[0]() + x


def returns_closure(x):
    y = x * 2.0
    return lambda: y + 1.0


def test_closure_stored_on_the_heap_and_called_later():
    calls = [(tf.constant([float(i)]),) for i in range(5)]
    assert_same(store_and_call, calls, make_state=Holder)
    assert_same(append_lambda_and_call, calls, make_state=Holder)


def test_returned_closure_is_called_after_the_call():
    def call_result(x):
        return returns_closure_jit(x)()
    import janus
    returns_closure_jit = janus.jit(returns_closure)
    plain = [returns_closure(tf.constant([float(i)]))().numpy().tolist() for i in range(5)]
    got = [call_result(tf.constant([float(i)])).numpy().tolist() for i in range(5)]
    assert got == plain
    # the reason names the function and its line, though no user frame raised it
    reason = returns_closure_jit.last_failure_reason
    assert f"test_escaping_closures.py:{returns_closure.__code__.co_firstlineno}" in reason
    assert reason.startswith("returns_closure (")
