"""`sys.getrecursionlimit()` read by the program says the limit the program set, not the
one janus raised while it runs the code (recursion/limits.user_limit, F425): in a
profiled (converted) run, in a trace and in a graph's calls after the program changed
it between calls. Compared with plain Python call by call."""
import sys

import tensorflow as tf

import janus
from janus.recursion import limits
from tests.differential import assert_same

X = tf.constant([0.25, 0.5])


def _limit_restored(fn):
    def run():
        saved = sys.getrecursionlimit()
        try:
            fn()
        finally:
            sys.setrecursionlimit(saved)
    run.__name__ = fn.__name__
    return run


def _between(i, changes):
    for when, limit in changes:
        if i == when:
            sys.setrecursionlimit(limit)
    return (X,)


@_limit_restored
def test_the_limit_changed_between_calls():
    def step(x):
        if sys.getrecursionlimit() > 5000:
            return x * 2.0
        return x + 1.0

    changes = [(0, 1500), (3, 6000), (6, 1500), (8, 7000)]
    stats = assert_same(step, [lambda _, i=i: _between(i, changes) for i in range(11)],
                        make_state=object)
    assert stats.graph_calls >= 3, dict(stats.fallback_reasons)


@_limit_restored
def test_a_profiled_run_reads_the_program_s_limit():
    """The first calls run converted code under janus's raised room (4 frames a level):
    the program printed that room's limit."""
    def step(x):
        print(sys.getrecursionlimit())
        return x + 1.0

    sys.setrecursionlimit(1500)
    assert_same(step, [(X,), (X,)])


@_limit_restored
def test_the_limit_set_in_the_call():
    """`sys.setrecursionlimit(n)` in the call: the limit after it, and read after it, is
    the program's `n` (a trace refuses the setter: the call runs plainly)."""
    def step(x, n):
        sys.setrecursionlimit(n)
        return x * float(sys.getrecursionlimit() > 3000)

    assert_same(step, [(X, 1500 + 1000 * i) for i in range(6)],
                observe=lambda _: sys.getrecursionlimit())


@_limit_restored
def test_user_limit_inside_janus_s_rooms():
    """Inside janus's raises the program's limit is the one before the outermost, or the
    one the program set since."""
    sys.setrecursionlimit(1500)
    with limits.raised(3000):
        assert sys.getrecursionlimit() == 3000 and limits.user_limit() == 1500
        with limits.raised(4000):
            assert limits.user_limit() == 1500
        sys.setrecursionlimit(2500)  # (the program's)
        assert limits.user_limit() == 2500
        with limits.raised(5000):
            assert limits.user_limit() == 2500
    assert sys.getrecursionlimit() == 2500 and limits.user_limit() == 2500


@_limit_restored
def test_a_trace_inside_a_plain_run_reads_the_program_s_limit():
    """A jitted function called from a plain run of another (raised by janus's frames):
    its trace and its graph's guard read the program's limit."""
    @janus.jit
    def inner(x):
        return x * 2.0 if sys.getrecursionlimit() > 1500 else x

    def outer(x):
        return inner(x) + 1.0

    sys.setrecursionlimit(1500)
    assert_same(outer, [(X,)] * 8)
