"""A graph whose op fails at run time changes no variable: the call then runs plainly,
and plain Python makes the writes before the failing line once (fuzz seed 194, F305).

    v.assign_sub(0.1 * x)                          # a local copy until the graph ends
    w[0:2].assign(tf.fill([3 if flag else 1], 0.25))  # fails when the graph runs

The commit of `v` waited for the guards and the results but not for `w`'s new value:
`v` was assigned, the slice update failed, and the plain rerun subtracted again. Any op
the graph runs may fail so (a shape error, a `tf.gather` out of range, a
`tf.debugging` assertion, `check_numerics`), after any write (a Keras optimizer's step,
a generator's draw): no variable changes before all of them ran."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.v = tf.Variable(1.0)
        self.w = tf.Variable([1.0, -2.0, 3.0])
        self.steps = tf.Variable(0)
        self.opt = tf.keras.optimizers.SGD(0.1)
        self.draws = tf.random.Generator.from_seed(1)


TABLE = tf.constant([0.5, 0.25, 0.125])


def writes_then_fails(s, x, i, kind):
    s.v.assign_sub(0.1 * x)
    s.steps.assign_add(1)
    if kind == "slice":
        s.w[0:2].assign(tf.fill([3 if i > 2 else 2], 0.25))
    elif kind == "gathered_value":
        s.w.assign(tf.gather(TABLE, [i, 0, 1]))
    elif kind == "gathered_result":
        return tf.gather(TABLE, i) + s.v
    elif kind == "asserted":
        tf.debugging.assert_less(x, 5.0)
    elif kind == "numerics":
        s.w.assign_add(tf.debugging.check_numerics(tf.math.log(x) * tf.ones([3]), "log"))
    elif kind == "optimizer_step":  # (its variable and its `iterations`)
        with tf.GradientTape() as tape:
            loss = s.v * x
        s.opt.apply_gradients([(tape.gradient(loss, s.v), s.v)])
        s.w.assign(tf.gather(TABLE, [i, 0, 1]))
    elif kind == "drawn":  # (the generator's state: written at once, put back)
        s.v.assign_add(s.draws.normal([]))
        s.w.assign(tf.gather(TABLE, [i, 0, 1]))
    elif kind == "printed":
        tf.print(tf.gather(TABLE, i))
    elif kind == "later_write":
        y = tf.gather(TABLE, i)
        s.w.assign_add(y * tf.ones([3]))
    return s.v * 2.0


def _calls(kind, bad):
    """Calls where the graph succeeds, then fails, then succeeds again; then a run of
    calls that all fail (the first graph is made for one of them)."""
    good = [(tf.constant(1.0), tf.constant(1) if bad != "i" else 1, kind)]
    fails = [(tf.constant(7.0 if bad == "x" else -1.0 if bad == "log" else 1.0),
              tf.constant(5) if bad == "gather" else 3, kind)]
    return [good * 3 + fails + good * 2 + fails + good * 2, fails * 5]


def test_a_failing_slice_update_leaves_earlier_writes_once():
    mixed, failing = _calls("slice", "i")
    stats = assert_same(writes_then_fails, mixed, State)
    assert stats.graph_calls >= 3, stats
    assert_same(writes_then_fails, failing, State)


def test_a_gather_out_of_range_leaves_earlier_writes_once():
    for kind in ("gathered_value", "gathered_result", "later_write", "printed",
                 "optimizer_step", "drawn"):
        mixed, failing = _calls(kind, "gather")
        stats = assert_same(writes_then_fails, mixed, State)
        assert stats.graph_calls >= 3, (kind, stats)
        assert_same(writes_then_fails, failing, State)


def test_a_failing_assertion_leaves_earlier_writes_once():
    for kind, bad in (("asserted", "x"), ("numerics", "log")):
        mixed, failing = _calls(kind, bad)
        stats = assert_same(writes_then_fails, mixed, State)
        assert stats.graph_calls >= 3, (kind, stats)
        assert_same(writes_then_fails, failing, State)
