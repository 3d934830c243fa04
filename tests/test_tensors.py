"""janus/tensors.py: `is_tensor` answers as `tf.is_tensor`, once per type, and keeps no
class made by a function alive (F412)."""
import gc
import weakref

import numpy as np
import tensorflow as tf

from janus.graphgen import leftover_tensors
from janus.tensors import is_tensor


def test_answers_as_tf_is_tensor():
    for value in (tf.constant(1.0), tf.Variable(1.0), np.float32(1.0), [1.0], "x", None,
                  tf.sparse.from_dense([[1.0]]), tf.ragged.constant([[1.0], []])):
        assert is_tensor(value) == tf.is_tensor(value), value
        assert is_tensor(value) == tf.is_tensor(value), value  # (the kept answer)


def test_a_class_made_by_a_function_is_not_kept_alive():
    def make():
        class Batch:
            rows = [1.0] * 10
        return Batch

    made = make()
    alive = weakref.ref(made)
    assert not is_tensor(made())
    assert leftover_tensors._kind(made) == "other"
    del made
    gc.collect()
    assert alive() is None
