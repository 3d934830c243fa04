"""Class: a function converted code made (a lambda) and handed to a library may run
after the profiled call ended (a stored callback); it then runs as plain Python.

Its hooks used to record into the profile of a call that was over (`None.site(...)`:
AttributeError instead of the user's result).
"""
import tensorflow as tf

from tests.differential import assert_same


class Trainer:
    def __init__(self):
        self.callbacks = []
        self.log = []


def register_and_fire(t, x):
    scale = 2.0
    t.callbacks.append(lambda v: t.log.append(float(tf.reduce_sum(v)) * scale))
    for cb in list(t.callbacks[:-1]):  # callbacks registered by earlier calls
        cb(x)
    return x * scale


def fire_outside(t, x):
    for cb in t.callbacks:
        cb(x)
    return len(t.log)


def test_callback_made_while_profiling_called_after_the_call():
    import janus
    jitted = janus.jit(register_and_fire)
    plain_t, janus_t = Trainer(), Trainer()
    for i in range(4):
        x = tf.constant([float(i), 1.0])
        register_and_fire(plain_t, x)
        jitted(janus_t, x)
        assert fire_outside(janus_t, x) == fire_outside(plain_t, x)
        assert janus_t.log == plain_t.log


def test_stored_callbacks_fired_inside_later_calls():
    calls = [(tf.constant([float(i), 1.0]),) for i in range(5)]
    assert_same(register_and_fire, calls, make_state=Trainer)
