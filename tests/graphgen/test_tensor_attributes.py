"""Attributes of a tensor computed in the step whose graph answer differs from the eager
one (`y.device`, `y.name`, `y.op`...: graphgen/tensor_attributes.py, F373), compared with
plain Python call by call: the graph gives eager's answer, raises eager's error, or the
line runs in Python."""
import pytest
import tensorflow as tf

import janus
from janus.graphgen import tensor_attributes
from tests.differential import assert_same

CALLS = [(tf.constant([1.0, float(i)]),) for i in range(6)]

one_device = pytest.mark.skipif(len(tf.config.list_logical_devices()) != 1,
                                reason="eager placement is certain only with one device")


@one_device
def test_device_of_computed_tensors_is_the_eager_one():
    def step(x):
        y = x * 2.0
        with tf.device("/cpu:0"):
            z = y + 1.0
        on_gpu = "GPU" in y.device
        print(y.device, z.device, x.device, tf.constant(1).device == "")
        return y * (3.0 if on_gpu else 2.0), z.backing_device, getattr(z, "device")

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3, stats


def _scoped(fn, scope):
    """`fn` called under the caller's `tf.device(scope)` (alternating with no scope)."""
    def run(x):
        if float(x[1]) % 2:
            return fn(x)
        with tf.device(scope):
            return fn(x)
    return run


@one_device
@pytest.mark.parametrize("scope", ["/cpu:0", "/CPU:0", "/device:CPU:0",
                                   "/job:localhost/replica:0/task:0/device:CPU:0"])
def test_device_under_the_callers_device_scope(scope):
    def step(x):
        y = x * 2.0
        return y, y.device, y.device.endswith("CPU:0"), y.device == ""

    jitted = janus.jit(step)
    calls = CALLS + CALLS
    stats = assert_same(_scoped(step, scope), calls, jitted=_scoped(jitted, scope),
                        stats_of=jitted)
    assert stats.graph_calls >= 4, stats


def test_name_op_graph_raise_as_eagerly():
    for name in ("name", "op", "graph", "value_index", "_op"):
        def step(x, name=name):
            y = x * 2.0
            return y, getattr(y, name) if name == "_op" else {
                "name": lambda: y.name, "op": lambda: y.op, "graph": lambda: y.graph,
                "value_index": lambda: y.value_index}[name]()

        assert_same(step, CALLS)


def test_name_read_raises_attribute_error():
    def step(x):
        y = x * 2.0
        return y.name

    assert_same(step, CALLS)


def test_queries_of_eagerly_undefined_attributes():
    def step(x):
        y = x * 2.0
        return y, hasattr(y, "name"), getattr(y, "op", "no op"), hasattr(y, "device"), \
            getattr(y, "graph", None) is None

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3, stats


def test_class_of_a_computed_tensor_is_the_eager_one():
    def step(x):
        y = x * 2.0
        return y, y.__class__.__name__, type(y).__name__

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3, stats


def test_consumers_and_eager_only_attributes_run_in_python():
    def consumers(x):
        y = x * 2.0
        return y.consumers()

    def packed(x):
        y = x * 2.0
        return y, y.is_packed

    assert_same(consumers, CALLS)
    assert_same(packed, CALLS)


V = tf.Variable(tf.ones([4, 2]))


@one_device
def test_gradient_slices_and_variables_answer_as_eagerly():
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(V, [0, 2]) * x)
        g = tape.gradient(loss, V)
        return loss, g.device, hasattr(g, "name"), getattr(g, "op", None) is None, \
            V.device, V.read_value().device

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3, stats


def test_several_devices_refuse_the_device(monkeypatch):
    """Where more than one device is visible (a GPU), eager placement depends on kernels:
    `.device` of a computed tensor runs in Python."""
    monkeypatch.setattr(tensor_attributes, "_device", [None])

    def step(x):
        y = x * 2.0
        return y, y.device, "CPU" in tf.reduce_sum(y).device

    assert_same(step, CALLS)
