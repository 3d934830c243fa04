"""Library ops that use a variable through its handle around janus's deferred variable
writes (graphgen/handle_writes.py): a v1 optimizer's update, `tf.compat.v1.scatter_*`, a
`tf.random.Generator` draw after `reset_from_seed` read the variable as it was before the
call's deferred write and wrote it at once, before the guards held: the deferred copy
overwrote the update, or a failed guard's plain rerun applied it twice (wrong
variables). A call that would read or overwrite a deferred write runs in Python; a
variable handed to such an op with no deferred write before is written at once, saved
before each graph and put back when one fails. Every test compares janus with plain
Python call by call, variables included."""
import tensorflow as tf

from tests.differential import assert_same


class Holder:
    def __init__(self):
        self.v = tf.Variable([1.0, 2.0])
        self.ints = tf.Variable(tf.range(5))
        self.opt = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        self.gen = tf.random.Generator.from_seed(7)


def decay_then_v1_step(h, x):
    h.v.assign_sub(0.1 * h.v)  # (deferred)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(h.v * x)
    h.opt.apply_gradients([(tape.gradient(loss, h.v), h.v)])
    return loss


def v1_step_then_test(h, x):
    h.opt.apply_gradients([(tf.ones([2]), h.v)])
    if tf.reduce_sum(x) > 0:  # (its outcome flips: an in-graph guard fails)
        return x * 2.0
    return x * 3.0


def method_then_compat_scatter(h, p):
    h.ints.scatter_nd_update([[p]], [7])
    tf.compat.v1.scatter_update(h.ints, [p], [p])
    return h.ints.read_value()


def reset_then_draw(h, seed):
    h.gen.reset_from_seed(seed)
    return h.gen.normal([3])


def test_a_v1_optimizer_after_a_deferred_write():
    assert_same(decay_then_v1_step, [lambda h, i=i: (h, tf.constant([1.0, -0.5 * i]))
                                     for i in range(6)], make_state=Holder)


def test_a_v1_optimizer_before_a_failing_guard_applies_once():
    xs = [tf.constant([1.0, 2.0]) * (1 if i < 6 or i % 2 else -1) for i in range(10)]
    stats = assert_same(v1_step_then_test, [lambda h, x=x: (h, x) for x in xs],
                        make_state=Holder)
    # (the variable it writes at once is saved before each graph and put back when one
    # fails: graphs still run)
    assert stats.graph_calls >= 3, stats


def test_a_compat_scatter_after_a_method_write():
    assert_same(method_then_compat_scatter, [lambda h, i=i: (h, i % 5) for i in range(6)],
                make_state=Holder)


def test_a_generator_draw_after_its_reset():
    assert_same(reset_then_draw, [lambda h, i=i: (h, i % 3) for i in range(6)],
                make_state=Holder, observe=lambda h: h.gen.state.numpy().tolist())


def draws(h, x):
    return x + h.gen.normal([2])


def test_generator_draws_alone_stay_graphs():
    stats = assert_same(draws, [lambda h, i=i: (h, tf.constant([float(i), 1.0]))
                                for i in range(6)], make_state=Holder,
                        observe=lambda h: h.gen.state.numpy().tolist())
    assert stats.graph_calls >= 3, stats


def reseeds(h, x, n):
    h.gen.reset_from_seed(n % 3)
    return x * 2.0


def test_a_seed_that_changes_per_call_stays_a_python_int():
    # (F172, fuzz v71 seed 2840137: fed as a tensor, TF made another state of it)
    calls = [lambda h, n=n: (h, tf.constant([1.0, 2.0]), n) for n in [0, 0, 0, 3, 1, 1, 2, 4]]
    assert_same(reseeds, calls, make_state=Holder,
                observe=lambda h: h.gen.state.numpy().tolist())
