"""janus's own looks at a user object's attributes (`is_tensor_like` for tf.is_tensor,
`__janus_function__`, `__self__`, `__name__`, a Keras `_tracker`...) treat any exception
the object's `__getattr__` raises as "no such attribute" (janus/user_attributes.py):
an "AttrDict" config (`__getattr__ = dict.__getitem__`: KeyError) as an argument was a
janus internal error while profiling (hasattr only swallows AttributeError)."""
import tensorflow as tf

from tests.differential import assert_same


class AttrDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


class Strict:
    """A config whose `__getattr__` raises its own error for an unknown key."""

    def __init__(self, **values):
        self.__dict__.update(values)

    def __getattr__(self, name):
        raise RuntimeError(f"no config key {name}")


class Scale(Strict):
    def __call__(self, t):
        return t * self.k


def step(c, x, scale):
    c.step += 1
    c.w.assign_sub(0.1 * x)
    return scale(tf.reduce_sum(c.w) * c.lr)


def _calls():
    return [(tf.constant([1.0, 0.5]) * i, Scale(k=0.5 + i % 2)) for i in range(10)]


def test_an_attrdict_config_runs_as_plain_python_does():
    """(Runs eagerly: janus copies only exact lists and dicts into a graph.)"""
    assert_same(step, _calls(), lambda: AttrDict(step=0, w=tf.Variable([1.0, 2.0]), lr=0.5))


def test_objects_whose_getattr_raises_other_errors_run_as_graphs():
    stats = assert_same(step, _calls(), lambda: Strict(step=0, w=tf.Variable([1.0, 2.0]),
                                                       lr=0.5))
    assert stats.graph_calls >= 4, stats
