"""A helper in another module, with a global named like one of the caller's."""
SCALE = 3.0


def helper(x):
    return x * SCALE


def checked(x):
    """An assert on a tensor (here, outside test modules, pytest does not rewrite it)."""
    import tensorflow as tf
    assert tf.reduce_sum(x) > 0, "must be positive"
    return x * 2.0
