"""Losses a Keras layer records while it is called (`add_loss`, an activity regularizer)
stay on the layer after the call (`model.losses`): a graph's trace left its symbolic
tensors there, so after a graph call `model.losses` held graph tensors where plain
Python holds the call's values (zoo10-F65). Such a trace now refuses."""
import keras
import pytest
import tensorflow as tf

import janus


class Regularized(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2, activity_regularizer=keras.regularizers.L2(0.1))

    def call(self, x):
        return self.dense(x)


class AddsLoss(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2)

    def call(self, x):
        y = self.dense(x)
        self.add_loss(tf.reduce_mean(tf.square(y)))
        return y


def forward(model, x):
    return tf.reduce_sum(model(x)) + tf.add_n(model.losses)


def _run(model_class, fn):
    keras.utils.set_random_seed(0)
    model = model_class()
    model(tf.zeros([1, 3]))
    out = []
    for i in range(8):
        value = fn(model, tf.ones([1, 3]) * i)
        out.append((float(value), [float(loss) for loss in model.losses]))  # read after
    return out


def _losses_after(model_class):
    jitted = janus.jit(forward)
    expected, actual = _run(model_class, forward), _run(model_class, jitted)
    for i, (e, a) in enumerate(zip(expected, actual)):
        assert a[1] == pytest.approx(e[1], rel=1e-5) and a[0] == pytest.approx(e[0], rel=1e-5), \
            f"call {i}: plain {e}, janus {a} ({janus.stats(jitted)})"


def test_activity_regularizer_losses_after_the_call():
    _losses_after(Regularized)


def test_add_loss_in_call_after_the_call():
    _losses_after(AddsLoss)
