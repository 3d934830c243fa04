"""A helper in another module, with a global named like one of the caller's."""
SCALE = 3.0


def helper(x):
    return x * SCALE
