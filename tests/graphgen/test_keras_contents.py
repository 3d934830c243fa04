"""The per-call checks of what no epoch counts (graphgen/keras_contents.py, session 29:
F258): Keras' configuration as one reader (set to another value, or to an equal value in
a new object, between calls), the lists and dicts Keras objects hold (items replaced by
equal objects, by other values, by a value of another type), compared with plain Python
call by call; and the check itself (a changed item fails, an equal one in a new object
holds and is what the next check looks for)."""
import keras
import tensorflow as tf

from janus.graphgen import keras_contents
from janus.graphgen.keras_contents import Contents, held_items, keras_config, setting_key
from tests.differential import assert_same

X = tf.constant([[0.25, 0.75]])


def _restored(fn):
    def run(*args, **kwargs):
        saved = (keras.backend.floatx(), keras.backend.epsilon(),
                 keras.backend.image_data_format(), keras.mixed_precision.global_policy().name)
        try:
            return fn(*args, **kwargs)
        finally:
            keras.backend.set_floatx(saved[0])
            keras.backend.set_epsilon(saved[1])
            keras.backend.set_image_data_format(saved[2])
            keras.mixed_precision.set_global_policy(saved[3])
    return run


class Step:
    def __init__(self):
        self.dense = keras.layers.Dense(2, kernel_initializer="ones")
        self.huber = keras.losses.Huber(delta=1.0)
        self.sched = keras.optimizers.schedules.PiecewiseConstantDecay([4, 8], [1.0, 0.5, 0.25])


def keras_step(s, x):
    y = s.dense(x)
    loss = s.huber(tf.zeros_like(y), y) * s.sched(5)
    bce = tf.reduce_mean(keras.losses.binary_crossentropy(tf.ones_like(x), x * 0.0))
    print(keras.backend.image_data_format())
    return loss + bce


def _between(i, changes, *state):
    """Make call i's process-wide changes (idempotent: each side's call i makes them);
    the call's arguments."""
    for when, change in changes:
        if i == when:
            change()
    return (*state, X)


@_restored
def test_keras_config_set_between_calls_of_a_keras_step():
    changes = [(3, lambda: keras.backend.set_epsilon(keras.backend.epsilon() * 1.0)),
               (4, lambda: keras.config.set_floatx("float" + str(32))),
               (6, lambda: keras.config.set_epsilon(0.25)),
               (8, lambda: keras.backend.set_epsilon(1e-7)),
               (10, lambda: keras.backend.set_image_data_format("channels_first")),
               (12, lambda: keras.backend.set_image_data_format("channels_last"))]
    stats = assert_same(keras_step,
                        [lambda s, i=i: _between(i, changes, s) for i in range(14)],
                        make_state=Step)
    assert stats.graph_calls >= 8  # (an equal value in a new object keeps the graph)


@_restored
def test_program_getters_read_with_a_keras_call():
    def step(x):
        y = tf.cast(x, keras.config.floatx()) + keras.backend.epsilon()
        print(keras.mixed_precision.global_policy().name, keras.config.image_data_format())
        return y + tf.cast(tf.reduce_mean(keras.losses.binary_crossentropy(
            tf.ones_like(x), x * 0.0)), y.dtype)

    changes = [(3, lambda: keras.backend.set_epsilon(keras.backend.epsilon() * 1.0)),
               (4, lambda: keras.backend.set_floatx("float64")),
               (6, lambda: keras.mixed_precision.set_global_policy("mixed_float16")),
               (7, lambda: keras.mixed_precision.set_global_policy("float32")),
               (8, lambda: keras.backend.set_floatx("float32")),
               (9, lambda: keras.config.set_epsilon(0.5))]
    stats = assert_same(step, [lambda _, i=i: _between(i, changes) for i in range(12)],
                        make_state=object)
    assert stats.graph_calls >= 4


def _replace_held(s, i):
    if i == 3:
        s.huber._fn_kwargs["delta"] = float("1.0")  # (equal, a new object)
    if i == 5:
        s.sched.values[:] = [1.0, 0.5 * 1.0, 0.25]  # (equal items, new objects)
    if i == 7:
        s.huber._fn_kwargs["delta"] = 0.25
    if i == 9:
        s.sched.values[1] = 2.0
    if i == 11:
        s.sched.boundaries[0] = 6
    return (s, X)


@_restored
def test_held_items_replaced_between_calls():
    stats = assert_same(keras_step, [lambda s, i=i: _replace_held(s, i) for i in range(14)],
                        make_state=Step)
    assert stats.graph_calls >= 8


# -- the check itself

def _contents(*containers, settings=()):
    return Contents([(c, held_items(c)) for c in containers], list(settings)).check


def test_contents_check_holds_until_an_item_changes():
    kwargs, values, empty = {"delta": 1.0, "axis": -1}, [1.0, 0.5, 0.25, 0.1, 0.05], []
    check = _contents(kwargs, values, empty)
    assert check() and check()
    kwargs["delta"] = float("1.0")  # (an equal value in a new object: holds)
    assert check() and check()
    values[4] = 0.05 * 1.0
    assert check()
    kwargs["delta"] = 1  # (an int for a float)
    assert not check()
    kwargs["delta"] = 1.0
    assert check()
    values.append(0.0)
    assert not check()
    values.pop()
    empty.append(None)
    assert not check()
    empty.clear()
    kwargs["delta"] = kwargs.pop("delta")  # (the same items, another order)
    assert not check()


def test_contents_check_reads_each_setting():
    box = [1.0]
    check = _contents(settings=[(lambda: box[0], setting_key(1.0)),
                                (lambda: [box[0]], setting_key([1.0]))])
    assert check() and check()
    box[0] = float("1.0")
    assert check()
    box[0] = 2.0
    assert not check()


@_restored
def test_keras_config_is_one_text_while_unchanged():
    text = keras_config()
    assert keras_config() is text
    keras.backend.set_epsilon(keras.backend.epsilon() * 1.0)
    assert keras_config() == text
    keras.config.set_epsilon(0.5)
    assert keras_config() != text and "0.5" in keras_config()
    keras.config.set_epsilon(1e-7)
    keras.backend.set_floatx("float64")
    assert "float64" in keras_config()
    assert keras_contents.keras_config is keras_config
