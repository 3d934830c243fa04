"""The call's own writes to the lists and dicts Keras objects hold, then Keras' code
reading them in the same call (F320): Keras must read what plain Python wrote."""
import keras
import pytest
import tensorflow as tf

from tests.differential import assert_same


def scale_shift(x, k, b):
    return x * k + b


class Held:
    def __init__(self):
        keras.utils.set_random_seed(0)
        self.sched = keras.optimizers.schedules.PiecewiseConstantDecay(
            [4, 8, 12], [1.0, 0.5, 0.25, 0.1])
        self.huber = keras.losses.Huber(delta=1.0)
        self.resc = keras.layers.Rescaling(scale=[1.0, 2.0])
        self.lam = keras.layers.Lambda(scale_shift, arguments={"k": 2.0, "b": 0.0})
        self.v = tf.Variable([1.0, -2.0])
        self.rate = keras.optimizers.schedules.PiecewiseConstantDecay([1, 1000], [0.5, 0.1, 0.01])
        self.opt = keras.optimizers.SGD(self.rate)
        self.opt.build([self.v])


def boundary_written(s, x, n):
    s.sched.boundaries[0] = 4 + n % 2
    return x * s.sched(5)


def value_written(s, x, n):
    s.sched.values[1] = 0.25 * (n % 3)
    return x * s.sched(5)


def values_sliced(s, x, n):
    s.sched.values[:] = [1.0, 0.5 + n % 2, 0.25, 0.1]
    return x * s.sched(5)


def boundary_appended(s, x, n):
    if n % 2:
        s.sched.boundaries.append(20)
        s.sched.values.append(0.05)
    return x * s.sched(30)


def boundaries_rebound(s, x, n):
    s.sched.boundaries = [4 + n % 2, 8, 12]
    return x * s.sched(5)


def kwargs_written(s, x, n):
    s.huber._fn_kwargs["delta"] = 0.5 + n % 2
    return s.huber(x, tf.zeros_like(x))


def scale_written(s, x, n):
    s.resc.scale[1] = 2.0 + n % 2
    return s.resc(x)


def arguments_written(s, x, n):
    s.lam.arguments["k"] = 2.0 + n % 2
    return s.lam(x)


def rate_list_written(s, x, n):
    s.rate.values[0] = 0.5 / (1 + n % 2)  # (the schedule the optimizer holds)
    s.opt.apply_gradients([(x[0], s.v)])
    return s.v + 0.0


def config_read(s, x, n):
    s.sched.boundaries[0] = 4 + n % 2  # (a method of the schedule reads it)
    return x * float(s.sched.get_config()["boundaries"][0])


def layer_config_read(s, x, n):
    s.resc.scale[1] = 2.0 + n % 2
    return x * float(s.resc.get_config()["scale"][1])


def read_then_written(s, x, n):
    y = x * s.sched(5)  # (before the write: the trace's read is plain Python's)
    s.sched.boundaries[0] = 4 + n % 2
    return y


WRITERS = [boundary_written, value_written, values_sliced, boundary_appended,
           boundaries_rebound, kwargs_written, scale_written, arguments_written,
           rate_list_written, config_read, layer_config_read, read_then_written]


@pytest.mark.parametrize("fn", WRITERS, ids=lambda fn: fn.__name__)
def test_held_containers_written_in_the_call_before_keras_reads_them(fn):
    x = tf.constant([[1.0, 4.0]])
    assert_same(fn, [(x, n) for n in [1, 1, 1, 1, 2, 2, 1, 1, 2, 3, 3]], Held)


def test_held_containers_written_after_keras_read_them_keep_graphs():
    x = tf.constant([[1.0, 4.0]])
    stats = assert_same(read_then_written, [(x, 1)] * 8, Held)
    assert stats.graph_calls >= 4, stats


# -- F321: a method of a schedule or loss (`get_config`) reads its settings as its call does

def config_of(s, x):
    return x * float(s.sched.get_config()["boundaries"][0])


def _boundary_changed(i, s, x):
    if i in (4, 7):
        s.sched.boundaries[0] = 4 + i
    return (s, x)


def test_a_schedule_s_method_reads_its_lists_changed_between_calls():
    x = tf.constant([[1.0, 4.0]])
    calls = [(lambda s, i=i: _boundary_changed(i, s, x)) for i in range(10)]
    stats = assert_same(config_of, calls, Held)
    assert stats.graph_calls >= 5, stats
