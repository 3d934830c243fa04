"""`locals()`, `vars()` and `dir()` read the converted frame: they show the user's names
only (transform/effects.py `user_frame`, F186, the probes' round: janus's runtime
`janus__` was among them). And a `while` test binding a name (`while (m := f()) < 10:`)
keeps it in the function (transform/control_flow.py: the test is not moved into a
closure, where the walrus bound it; reading it after the loop was janus's NameError).
Each test compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def frame_names(x, k):
    a = x * k
    return sorted(locals().keys()), sorted(vars()), dir()


def test_locals_vars_and_dir_show_the_user_s_names_only():
    assert_same(frame_names, [(tf.constant(2.0), i) for i in range(4)])


def walrus_test(x, limit):
    n = 0
    while (m := n * n) < limit:
        n += 1
    return x + m, n


def test_a_name_a_while_test_binds_is_the_function_s():
    assert_same(walrus_test, [(tf.constant(1.0), v) for v in (10, 10, 3, 30, 10)])
