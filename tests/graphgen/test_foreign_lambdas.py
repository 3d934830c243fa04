"""A lambda made outside converted code (in `__init__`, at module level), called by a
jitted function: its reads of the heap and of globals were folded into the graph as the
values they had while tracing, unguarded (zoo p49: a learning-rate schedule
`lambda: 0.1 * 0.5 ** self.step` kept the first step's rate). It is converted as the
`def` it stands for."""
import tensorflow as tf

from janus.transform.pipeline import lambda_traced_as_is
from tests.differential import assert_same

SCALE = 2.0


class Trainer:
    def __init__(self):
        self.step = 0
        self.w = tf.Variable(1.0)
        self.lr = lambda: 0.1 * 0.5 ** self.step
        self.act = lambda t: tf.nn.relu(t) * self.step
        self.pair = (lambda t: t + SCALE, lambda t: t * SCALE)


def train(s, g):
    lr = s.lr()
    s.w.assign_sub(lr * g)
    s.step += 1
    return lr, s.act(g), s.pair[1](g)


def test_a_schedule_lambda_reads_the_heap_on_every_call():
    global SCALE
    calls = [(tf.constant(1.0),)] * 4
    stats = assert_same(train, calls + [(tf.constant(2.0),)] * 3, make_state=Trainer)
    assert stats.graph_calls > 0, stats
    try:  # a global the lambda reads changes between calls
        SCALE = 3.0
        assert_same(train, calls, make_state=Trainer)
    finally:
        SCALE = 2.0


def mapped(s, xs):
    s.step += 1
    return tf.map_fn(s.act, xs)


def test_a_lambda_tf_traces_reads_the_heap_too():
    stats = assert_same(mapped, [(tf.constant([1.0, -2.0, 3.0]),)] * 6, make_state=Trainer)
    assert stats.graph_calls > 0, stats


def test_only_lambdas_of_converted_code_are_traced_as_they_are():
    s = Trainer()
    assert not lambda_traced_as_is(lambda t: tf.nn.relu(t) * 2.0)  # (made here: plain code)
    assert not lambda_traced_as_is(s.lr) and not lambda_traced_as_is(s.pair[0])


COUNTED = lambda s: 0.5 ** s.step  # noqa: E731 - reads its argument's attribute


def counted(s, x):
    s.step += 1
    return x * COUNTED(s)


def test_a_lambda_reading_an_attribute_of_its_argument():
    stats = assert_same(counted, [(tf.constant(1.0),)] * 6, make_state=Trainer)
    assert stats.graph_calls > 0, stats


def test_a_lambda_jitted_itself():
    double = lambda v: v * SCALE + 1.0  # noqa: E731 - janus.jit(lambda ...): converted too
    stats = assert_same(double, [(tf.constant([1.0, 2.0]),)] * 5)
    assert stats.graph_calls > 0, stats


LOSSES = {"l1": lambda a, b: tf.reduce_mean(tf.abs(a - b)),
          "l2": lambda a, b: tf.reduce_mean(tf.square(a - b))}


def _weighted(loss, weight, a, b):
    return weight * loss(a, b)


def partial_losses(x, y, kind):
    import functools
    terms = [functools.partial(_weighted, LOSSES[k], w) for k, w in (("l1", 0.3), (kind, 1.0))]
    return sum(t(x, y) for t in terms)


def test_a_partial_over_a_dict_lambda_called_by_the_function():
    # (zoo p31: the wrapper janus makes for a library's callback, functools.partial's
    # here, was converted as if it were the lambda, and the whole function ran eagerly)
    calls = [(tf.constant([1.0, 2.0 + i]), tf.constant([0.5, 1.0]), "l1" if i % 3 else "l2")
             for i in range(10)]
    stats = assert_same(partial_losses, calls)
    assert stats.graph_calls >= 6 and stats.generation_failures == 0, stats
