"""A `functools.partial` of the user's function called in a jitted function is the call
of that function, converted (graphgen/runtime.py `_partial`): it ran as a library call,
unconverted while tracing (F168): its heap writes happened once, at trace time, and the
globals it read were baked in (a changed global kept its first value). The partial's
stored arguments are read from it and guarded. Every test compares janus with plain
Python call by call."""
import functools

import tensorflow as tf

from tests.differential import assert_same

SCALE = 2.0


class Log:
    def __init__(self):
        self.calls = 0
        self.seen = []


def weighted_loss(log, x, power=2.0):
    log.calls += 1
    log.seen.append(x)
    return tf.reduce_sum(x ** power) * SCALE


CUBED = functools.partial(weighted_loss, power=3.0)
NESTED = functools.partial(functools.partial(weighted_loss), power=1.0)


def step(log, x, loss):
    return loss(log, x) + 1.0


def test_a_partial_runs_converted_with_its_writes_and_global_reads():
    global SCALE

    def call(i, loss):
        def make(log):
            global SCALE
            if i == 5:
                SCALE = 5.0
            return (log, tf.constant([float(i), 1.0]), loss)
        return make

    try:
        for loss in (CUBED, NESTED):
            SCALE = 2.0
            stats = assert_same(step, [call(i, loss) for i in range(8)], make_state=Log)
            assert stats.graph_calls >= 4, stats
    finally:
        SCALE = 2.0


def test_the_partial_arguments_are_guarded():
    holder = {"loss": functools.partial(weighted_loss, power=2.0)}

    def run(log, x):
        return holder["loss"](log, x)

    def call(i):
        def make(log):
            if i == 4:
                holder["loss"] = functools.partial(weighted_loss, power=1.0)
            return (log, tf.constant([float(i), 2.0]))
        return make

    assert_same(run, [call(i) for i in range(7)], make_state=Log)


def test_a_partial_keyword_changed_in_place_is_seen():
    loss = functools.partial(weighted_loss, power=2.0)

    def run(log, x):
        return loss(log, x)

    def call(i):
        def make(log):
            loss.keywords["power"] = 2.0 if i < 4 else 1.0
            return (log, tf.constant([float(i), 2.0]))
        return make

    assert_same(run, [call(i) for i in range(7)], make_state=Log)


KEYED = functools.partial(weighted_loss, power=2.0)


def sets_then_calls(log, x, n):
    KEYED.keywords["power"] = float(n % 3)  # (a heap write the call then reads)
    return KEYED(log, x)


def test_a_keyword_the_function_writes_before_calling_the_partial():
    # (fuzz v71 seeds 2830067, 2830118: the partial's keywords were read from the heap
    # as it was before the call's own write)
    calls = [lambda log, i=i: (log, tf.constant([float(i), 2.0]), i % 4) for i in range(8)]
    assert_same(sets_then_calls, calls, make_state=Log)


# -- library callables on the heap (F225): guarded by their contents or identity

class Callables:
    def __init__(self):
        import operator
        self.act = functools.partial(tf.nn.leaky_relu, alpha=0.1)
        self.pick = operator.itemgetter("a")
        self.call = operator.methodcaller("get", "a")
        self.d = {"a": tf.constant(1.0), "b": tf.constant(5.0)}
        self.scale = 2.0


def _change_callables(s, i):
    import operator
    if i == 4:
        s.act = functools.partial(tf.nn.leaky_relu, alpha=0.5)  # a new partial
        s.pick = operator.itemgetter("b")
    if i == 6:
        s.act.keywords["alpha"] = 0.9  # changed in place
    if i == 7:
        s.call = operator.methodcaller("get", "b")
    return (s, tf.constant([-1.0, float(i)]))


def test_library_partial_and_itemgetter_changed_between_calls():
    def step(s, x):
        return s.act(x) * s.pick(s.d) * s.call(s.d)

    stats = assert_same(step, [lambda s, i=i: _change_callables(s, i) for i in range(9)],
                        make_state=Callables)
    assert stats.graph_calls >= 3
