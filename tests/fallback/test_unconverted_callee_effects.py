"""Class: a callee janus cannot convert runs plainly inside a profiled call, so its effects
are not watched; a user error after them must propagate, not rerun the call plainly
(effects doubled; fuzz finding F14, warm-mode seed 300159, like F11 for callbacks).

The entry point (here a jitted method) called `f`, which has `global G_COUNT` (not
converted): `V0.assign_add(...)` ran, then `raise ValueError`; the safety net saw "no
effect yet" and reran the call plainly: the variable was updated twice.
"""
import tensorflow as tf

import janus
from tests.differential import assert_same

V0 = tf.Variable(0.5)
G_COUNT = 0
LOG = []


def unconverted(x, xs):
    global G_COUNT
    V0.assign_add(tf.reduce_mean(x) * 0.1)
    G_COUNT += 1
    if len(xs) == 2:
        raise ValueError("list length")
    return x


def entry(x, xs):
    return unconverted(x, xs) * 2.0


def entry_with_lambda(x, xs):
    log = (lambda v: LOG.append(v))
    log(len(xs))
    if len(xs) == 2:
        raise ValueError("list length")
    return x


class Model:
    @janus.jit
    def run(self, x, xs):
        return unconverted(x, xs)


def test_a_user_error_after_an_unconverted_callees_effects_is_not_rerun():
    calls = [(tf.constant([1.0, 2.0]), [1, 2]), (tf.constant([1.0, 2.0]), [1])] * 3
    before = V0.numpy(), G_COUNT
    assert_same(entry, calls)
    assert V0.numpy() != before[0]


def test_a_lambda_callee_is_watched_too():
    """F15: a lambda's global reads were not hooked, so while janus traced a graph
    `LOG.append` wrote the real list; the call then ran eagerly and appended again."""
    LOG.clear()
    for xs in ([1, 2], [1], [1, 2]):
        try:
            entry_with_lambda(tf.constant([1.0]), xs)
        except ValueError:
            pass
    plain, LOG[:] = list(LOG), []
    jitted = janus.jit(entry_with_lambda)
    for xs in ([1, 2], [1], [1, 2]):
        try:
            jitted(tf.constant([1.0]), xs)
        except ValueError:
            pass
    assert LOG == plain


def test_jitted_method_entry_with_an_unconverted_callee():
    model = Model()
    v = V0.numpy()
    try:
        model.run(tf.constant([1.0, 3.0]), [1, 2])
    except ValueError:
        pass
    assert abs(V0.numpy() - (v + 0.2)) < 1e-6, (v, V0.numpy())
