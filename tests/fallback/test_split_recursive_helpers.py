"""A recursive helper janus runs split at its graph breaks: the split function is compiled
under a name of janus's own, so the helper's call of itself stays a call of the global
(F184, the probes' round: the helper's own name was the compiling factory's local, and
every call raised janus's ValueError "'rec' is not in list", which reached the user).
Compared with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def rec(x, n):
    if n == 0:
        return x
    if tf.reduce_sum(x) > 10:
        return rec(x * 0.5, n - 1)
    return rec(x + 1, n - 1)


def entry(x, n):
    return rec(x, n)


def test_a_recursive_helper_with_a_tensor_test_runs_split_as_python_does():
    calls = [(tf.constant([float(i), 1.0]), i % 5) for i in range(40)]
    assert_same(entry, calls)
