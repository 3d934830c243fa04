"""A recorded graph is reused only when everything it was built from is found again."""
import json
import threading
import traceback

import keras
import numpy as np
import pytest
import tensorflow as tf

import janus
from janus.cache import portable


def apply(layer, x):
    return tf.reduce_sum(layer(x))


def _exported(layer, x):
    jitted = janus.jit(apply)
    for _ in range(3):
        jitted(layer, x)
    data = portable.export(jitted.specializations[0])
    assert data is not None
    return json.loads(json.dumps(data)), jitted


def _load(data, layer, x, jitted):
    args = (layer, x)
    env = (args, {}, apply.__globals__, ())
    return portable.load(data, args, {}, env, 99, jitted.plan, jitted.specializations[0].converted)


def test_reused_graph_equals_eager_on_another_layer_with_the_same_config():
    x = tf.ones([2, 3])
    first = keras.layers.Dense(4, activation="tanh")
    first.build((None, 3))
    data, jitted = _exported(first, x)
    second = keras.layers.Dense(4, activation="tanh", name=first.name)
    second.build((None, 3))
    second.kernel.assign(tf.random.stateless_normal([3, 4], seed=(1, 2)))
    spec = _load(data, second, x, jitted)
    assert spec is not None
    result = spec.run((second, x), {}, ((second, x), {}, apply.__globals__, ()))
    np.testing.assert_allclose(result.numpy(), apply(second, x).numpy(), rtol=1e-6)


def test_not_reused_when_the_layer_config_or_variable_shapes_differ():
    x = tf.ones([2, 3])
    first = keras.layers.Dense(4, activation="tanh")
    first.build((None, 3))
    data, jitted = _exported(first, x)
    relu = keras.layers.Dense(4, activation="relu", name=first.name)   # other config
    relu.build((None, 3))
    assert _load(data, relu, x, jitted) is None
    wider = keras.layers.Dense(5, activation="tanh", name=first.name)  # other shapes
    wider.build((None, 3))
    assert _load(data, wider, x, jitted) is None


def test_a_loaded_graph_is_called_without_formatting_its_inputs(monkeypatch):
    """The pruned imported function was called by its structured signature, which never
    binds: TF formatted every input (numpy repr) into an error and then fell back to the
    flat signature -- tens of ms per call for a tree batch's node table."""
    from tensorflow.python.framework import ops

    x = tf.ones([2, 3])
    layer = keras.layers.Dense(4, activation="tanh")
    layer.build((None, 3))
    data, jitted = _exported(layer, x)
    spec = _load(data, layer, x, jitted)
    assert spec is not None
    formatted = []
    original = ops._EagerTensorBase.__repr__
    caller = threading.get_ident()  # (threads earlier tests left running may format)

    def counting_repr(self):
        if threading.get_ident() == caller:
            formatted.append("".join(traceback.format_stack(limit=8)))
        return original(self)
    monkeypatch.setattr(ops._EagerTensorBase, "__repr__", counting_repr)
    result = spec.run((layer, x), {}, ((layer, x), {}, apply.__globals__, ()))
    monkeypatch.undo()
    np.testing.assert_allclose(result.numpy(), apply(layer, x).numpy(), rtol=1e-5)  # (graph vs eager float32 rounding)
    assert formatted == [], formatted[0]


def test_a_numpy_scalar_result_is_not_recorded_as_a_python_number():
    # (fuzz v19 warm mode, seed 542034: `s.last_c = np.float64(n) * 0.25` came back a float)
    import numpy as np
    from janus.cache import portable
    assert portable._skeleton(("const", 0.5)) == ["const", 0.5]
    for value in (np.float64(0.5), np.int64(3), np.bool_(True)):
        try:
            portable._skeleton(("const", value))
        except portable.NotPortable:
            continue
        raise AssertionError(f"{type(value).__name__} recorded as a Python number")


def choose(x, acc):
    return x if tf.reduce_sum(acc) > 0.0 else acc * 2.0


def test_a_result_that_may_be_an_input_is_recorded_with_its_choice():
    jitted = janus.jit(choose)
    x = tf.constant([1.0, 2.0])
    for i in range(8):
        jitted(x, tf.constant([(-1.0) ** i, 0.5]))
    spec = jitted.specializations[-1]
    assert spec.result[0] == "either", spec.result
    data = json.loads(json.dumps(portable._skeleton(spec.result)))
    assert portable._unskeleton(data) == spec.result
    for bad in (["either", 0, "1", data[3]], ["either", 0, 1, []], ["either", 0, 1]):
        try:
            portable._unskeleton(bad)
        except portable.Malformed:
            continue
        raise AssertionError(f"accepted {bad}")


class Steps:
    def __init__(self):
        self.k, self.loss_at = 0, {}


def log_step(s, x):
    s.k += 1
    s.loss_at[(s.k, "loss")] = tf.reduce_sum(x)
    return s.k


def test_keyed_writes_are_recorded_and_a_tampered_key_is_refused():
    # (graphgen/keyed_writes.py: `s.loss_at[s.k] = ...` replayed after the run)
    jitted, s = janus.jit(log_step), Steps()
    for i in range(6):
        jitted(s, tf.constant([1.0 * i]))
    spec = [sp for sp in jitted.specializations if sp.plan.write_only][0]
    assert [e.kind for e in spec.effects] == ["setattr", "setitems"], spec.effects
    data = portable.export(spec)
    assert data is not None
    data = json.loads(json.dumps(data))
    args = (s, tf.constant([2.0]))
    env = (args, {}, log_step.__globals__, ())
    loaded = portable.load(data, args, {}, env, 99, jitted.plan, spec.converted)
    assert loaded is not None
    assert loaded.run(args, {}, env) == 7 and float(s.loss_at[(7, "loss")]) == 2.0
    effect = [e for e in data["effects"] if e[0] == "setitems"][0]
    for bad_key in (["list", []], ["out", 0], ["source", effect[1]]):
        effect[3][1][0][1][0] = bad_key   # the first write's key: unhashable or not a key
        with pytest.raises(portable.Malformed):
            portable._parse(data)
    with pytest.warns(UserWarning, match="malformed"):
        assert portable.load(data, args, {}, env, 99, jitted.plan, spec.converted) is None
    assert list(s.loss_at) == [(k, "loss") for k in range(1, 8)]


ACTIVATION = lambda x: x * 2.0  # noqa: E731 - a module-level lambda, as users write them


def test_a_lambda_is_not_portable_it_names_nothing_another_process_finds():
    """A graph that read a module-level lambda was recorded portable, and every later
    process failed to load it (`__main__:<lambda>` names nothing): it regenerated
    silently instead of starting warm."""
    from janus.cache import portable
    with pytest.raises(portable.NotPortable):
        portable._describe_identity(ACTIVATION)
    assert portable._describe_identity(test_a_lambda_is_not_portable_it_names_nothing_another_process_finds)
