"""Two threads calling one jitted function at once: every result equals plain Python and
the function's counters and graphs stay consistent."""
import threading

import numpy as np
import tensorflow as tf

import janus


class Accumulator:
    def __init__(self):
        self.total = tf.zeros([3])


def add(acc, x):
    acc.total = acc.total + x * 2.0
    return tf.reduce_sum(acc.total)


def test_two_threads_share_one_jitted_function():
    jitted = janus.jit(add)
    errors = []

    def worker(seed):
        try:
            acc, reference = Accumulator(), Accumulator()
            rng = np.random.default_rng(seed)
            for _ in range(30):
                x = tf.constant(rng.normal(size=3), tf.float32)
                expected = add(reference, x)
                actual = jitted(acc, x)
                np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-6)
                np.testing.assert_allclose(acc.total.numpy(), reference.total.numpy(), rtol=1e-6)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    stats = janus.stats(jitted)
    assert stats.calls == 60
    assert stats.calls == stats.graph_calls + stats.profile_calls + stats.fallback_calls
    assert stats.generations == 1 and stats.graph_calls >= 50
