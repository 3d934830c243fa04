"""The bytecode of the program's code library code runs unconverted, read once per code
object (graphgen/held_bytecode.py): by the code object's identity, since two programs'
functions of the same text have code objects that compare equal (F376)."""
import types

import tensorflow as tf

from janus.graphgen.held_bytecode import instructions
from tests.differential import assert_same

SOURCE = '''
import keras
import tensorflow as tf


class Warm(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak):
        self._peak = peak

    def __call__(self, step):
        return self._peak * tf.minimum((tf.cast(step, tf.float32) + 1.0) / 3.0, 1.0)


class State:
    def __init__(self):
        self.sched = Warm(0.1)
        self.v = tf.Variable([1.0, 2.0])
        self.opt = keras.optimizers.SGD(self.sched)
        self.opt.build([self.v])


def step(s, x):
    s.opt.apply_gradients([(tf.constant([0.1, -0.1]), s.v)])
    s.sched._peak = s.sched._peak * 0.5 + 0.01
    return tf.reduce_sum(s.v) * x
'''


def _program(filename: str) -> types.SimpleNamespace:
    namespace: dict = {"__name__": filename}
    exec(compile(SOURCE, filename, "exec"), namespace)  # noqa: S102 - the test's own text
    return types.SimpleNamespace(**namespace)


def test_code_of_the_same_text_in_two_files_is_read_as_its_own():
    first, second = _program("<first program>"), _program("<second program>")
    one, other = first.Warm.__call__.__code__, second.Warm.__call__.__code__
    assert one == other and one is not other  # (equal: why a value-keyed cache failed)
    assert all(where is one for *_, where in instructions(one))
    assert all(where is other for *_, where in instructions(other))


def test_a_second_programs_schedule_setting_is_still_seen():
    """Program two, the same text as program one in another file: its step sets the
    schedule's private number Keras' code reads; janus must see the read (refuse or
    guard it) as it did for program one, not reuse program one's analysis."""
    calls = [(tf.constant(float(i + 1)),) for i in range(8)]
    for filename in ("<program one>", "<program two>"):
        program = _program(filename)
        assert_same(program.step, calls, program.State)
