"""Code of the program's a library runs unconverted while janus traces: the `__init__` of
a class with a library base made in the call (`class Record(dict)`, a tf.Module
subclass), a Keras Metric's `update_state`/`result` and a Loss's `call` (Keras'
`__call__` runs them). Their writes happened once, while tracing; their reads of Python
state were folded into the graph. Now the trace refuses (that line runs in Python).
Compared with plain Python call by call."""
import keras
import tensorflow as tf

from tests.differential import assert_same


def _classes():
    """A Record and a Block class of each side's own (their counters are class state)."""
    class Record(dict):
        made = 0

        def __init__(self, **kw):
            super().__init__(**kw)
            Record.made += 1

    class Block(tf.Module):
        made = 0

        def __init__(self):
            super().__init__()
            Block.made += 1

    return Record, Block


class State:
    def __init__(self):
        self.step = 0
        self.blocks = []
        self.Record, self.Block = _classes()


def records(s, x):
    s.step += 1
    if s.step % 4 == 0:
        s.blocks.append(s.Block())
    return Record_loss(s, x), s.Record.made, s.Block.made


def Record_loss(s, x):
    return s.Record(loss=x)["loss"] * 2.0


def test_a_class_with_a_library_base_and_its_own_init_made_in_the_call():
    assert_same(records, [(tf.constant(float(i)),) for i in range(10)], make_state=State)


class MeanAbs(keras.metrics.Metric):
    def __init__(self):
        super().__init__(name="mean_abs")
        self.total = self.add_weight(shape=(), initializer="zeros", name="total")
        self.updates = 0

    def update_state(self, y, p, sample_weight=None):
        self.updates += 1
        self.total.assign_add(tf.reduce_sum(tf.abs(y - p)))

    def result(self):
        return self.total / self.updates


class Counting(keras.losses.Loss):
    def __init__(self):
        super().__init__(name="counting")
        self.calls = 0

    def call(self, y, p):
        self.calls += 1
        return tf.reduce_mean(tf.square(y - p), -1)


class Tracked:
    def __init__(self):
        self.metric = MeanAbs()
        self.loss = Counting()


def metric_and_loss(s, y, p):
    return s.metric(y, p), s.loss(y, p), s.metric.updates, s.loss.calls


def test_a_keras_metric_or_loss_of_the_program_s():
    y = tf.constant([[1.0, 2.0]])
    calls = [(y, tf.constant([[0.5 * i, 1.0]])) for i in range(8)]
    assert_same(metric_and_loss, calls, make_state=Tracked)
