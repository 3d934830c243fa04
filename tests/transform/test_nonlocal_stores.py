"""`nonlocal` in a jitted function (a step built by a factory closure over a counter):
janus ran such a function eagerly for good ("rebinds a variable outside the function").
Its stores become runtime hooks (transform/global_stores.py): plain runs store into the
cell, a trace keeps the store in its ledger and the write-back stores it after the graph
ran (fallback/heap.py `setcell`). Each call compares with plain Python, cells included."""
import numpy as np
import pytest
import tensorflow as tf

import janus


def counting_step():
    count, total, log = 0, 0.0, []

    def step(x):
        nonlocal count, total
        count += 1
        total = total + float(tf.size(x)) * 0.5 if count > 100 else total + 0.5
        if count % 3 == 0:
            log.append(count)
        return x * float(count) + total

    return step, lambda: (count, total, list(log))


def split_step():
    """A graph break (`.numpy()`) between two stores: a split function's segments."""
    seen = 0

    def step(x):
        nonlocal seen
        seen += 1
        host = float(np.sum(x.numpy()))
        seen = seen + (1 if host > 2.0 else 0)
        return x * float(seen)

    return step, lambda: seen


def tensor_in_cell():
    """A tensor kept in the cell (a running mean), read back on the next call."""
    running = tf.zeros([2])

    def step(x):
        nonlocal running
        running = running * 0.9 + x * 0.1
        return tf.reduce_sum(running)

    return step, lambda: running.numpy().tolist()


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and (a == b or abs(a - b) <= 1e-6 * abs(b))


@pytest.mark.parametrize("make,graphs", [(counting_step, True), (split_step, False),
                                         (tensor_in_cell, True)])
def test_a_nonlocal_store_matches_plain_python(make, graphs):
    (plain, plain_cells), (fn, jit_cells) = make(), make()
    jitted = janus.jit(fn)
    for i in range(9):
        x = tf.constant([1.0, float(i % 4)])
        expected, actual = plain(x), jitted(x)
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-6)
        assert _same(jit_cells(), plain_cells()), (i, jit_cells(), plain_cells())
    if graphs:
        assert janus.stats(jitted).graph_calls >= 3, janus.explain(jitted)


def nested_counter(x, n):
    """A def made in the traced function rebinding its variable, called in a loop whose
    count changes (a tf.while_loop once generalized): counted once per trace, not per
    iteration (fuzz v70 seed 2750026); such a store refuses: the function runs plainly."""
    calls = 0

    def bump(t):
        nonlocal calls
        calls += 1
        return t + 1.0
    for _ in range(n):
        x = bump(x) * 0.5
    return x * float(calls)


def test_a_def_made_in_the_call_rebinding_its_variable_in_a_loop():
    from tests.differential import assert_same
    calls = [(tf.constant([1.0, 2.0]), n) for n in (1, 1, 2, 3, 4, 2, 5, 1)]
    assert_same(nested_counter, calls, jitted=janus.jit(nested_counter))
