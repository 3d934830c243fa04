"""How a feed turns a numpy array into a graph input (janus/graphgen/calls.py `checked`):
exactly what tf.convert_to_tensor(array, dtype) gives, never the user's memory."""
import numpy as np
import pytest
import tensorflow as tf

from janus.graphgen import calls


@pytest.mark.parametrize("array, dtype", [
    (np.arange(12, dtype=np.float32).reshape(3, 4) / 7, tf.float32),
    (np.arange(5, dtype=np.int64) - 2, tf.int64),
    (np.array([True, False]), tf.bool),
    (np.arange(6, dtype=np.float64)[::2], tf.float64),  # not contiguous
    (np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)), tf.int32),
])
def test_an_array_becomes_what_convert_to_tensor_gives(array, dtype):
    fed = calls.checked(array, dtype, array.shape)
    expected = tf.convert_to_tensor(array, dtype)
    assert type(fed) is type(expected) and fed.dtype == expected.dtype
    assert fed.shape == expected.shape
    np.testing.assert_array_equal(fed.numpy(), expected.numpy())


def test_the_tensor_is_a_copy_of_the_array():
    array = np.arange(4, dtype=np.float32)
    fed = calls.checked(array, tf.float32, (None,))
    array[:] = -1.0
    np.testing.assert_array_equal(fed.numpy(), np.arange(4, dtype=np.float32))


def _outcome(convert):
    try:
        tensor = convert()
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc).__name__
    return tensor.dtype.name, tensor.numpy().tolist()


@pytest.mark.parametrize("array_dtype", [np.float64, np.float32, np.float16, np.int64,
                                         np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64, tf.bool])
def test_an_array_of_another_dtype_converts_as_tensorflow_converts_it(array_dtype, dtype):
    array = (np.arange(3) * 1.5).astype(array_dtype)
    assert _outcome(lambda: calls.checked(array, dtype, (3,))) == \
        _outcome(lambda: tf.convert_to_tensor(array, dtype))


def test_a_shape_the_graph_was_not_traced_for_is_refused():
    with pytest.raises(TypeError):
        calls.checked(np.arange(3, dtype=np.float32), tf.float32, (4,))


def test_an_array_fed_while_building_a_graph_is_a_constant_of_it():
    with tf.Graph().as_default():
        fed = calls.checked(np.arange(3, dtype=np.float32), tf.float32, (3,))
        assert not isinstance(fed, calls.EagerTensor) and fed.op.type == "Const"


def test_an_array_lands_where_convert_to_tensor_puts_it():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert calls.checked(array, tf.float32, (2, 3)).device == \
        tf.convert_to_tensor(array, tf.float32).device
    with tf.device("/CPU:0"):
        assert calls.checked(array, tf.float32, (2, 3)).device == \
            tf.convert_to_tensor(array, tf.float32).device
    assert calls.to_tensor(np.arange(3), tf.int64.as_datatype_enum).device == \
        tf.constant(np.arange(3)).device
