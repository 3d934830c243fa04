"""A user's recursion as deep as plain Python allows runs under janus too (F349): janus's
runtime adds frames per level of converted code (recursion/limits.py gives it room); a
RecursionError janus still meets is the call's (run plainly, never janus's internal
error), and code catching a RecursionError gets plain Python's outcome. Compared with
plain Python call by call."""
import sys
import threading
import time

import pytest

import tensorflow as tf

from tests.differential import assert_same

E = tf.Variable([[0.1, -0.2], [0.3, 0.05], [-0.4, 0.2]])


class Node:
    def __init__(self, word=None, left=None, right=None):
        self.is_leaf = left is None
        self.word, self.left, self.right = word, left, right


def left_chain(depth: int) -> Node:
    node = Node(0)
    for i in range(depth):
        node = Node(left=node, right=Node((i + 1) % 3))
    return node


def encode(node):
    if node.is_leaf:
        return tf.gather(E, [node.word])
    return tf.tanh(encode(node.left) * 0.5 + encode(node.right))


# (the trees are a global's, picked by index: the differential snapshot of the heap walks
# arguments recursively and would itself hit the limit)
FORESTS = [[left_chain(400), Node(1)], [left_chain(460), Node(2)], [left_chain(520)]]


def encode_all(k):
    return tf.concat([encode(t) for t in FORESTS[k]], 0)


class Log:
    def __init__(self):
        self.lengths = []


def encode_logged(log, k):
    log.lengths.append(k)  # (an effect before the recursion: no plain rerun possible)
    return encode_all(k)


def test_a_chain_400_deep_runs_and_makes_graphs():
    """`encode` 400-520 deep (plain Python's limit is 1000): profiled, janus's frames made
    it 1200+ deep: a RecursionError in janus's profiler, reported as janus's internal
    error; the function then ran plainly for good."""
    stats = assert_same(encode_all, [(i % 3,) for i in range(8)])
    assert stats.internal_errors == 0
    assert stats.graph_calls >= 3, stats


def test_deep_recursion_after_an_effect_is_not_janus_s_internal_error():
    stats = assert_same(encode_logged, [(i % 3,) for i in range(6)], make_state=Log)
    assert stats.internal_errors == 0


# -- plain Python's room on janus's plain paths (F351) -----------------------------------
# A recursion that catches its RecursionError and says how deep it got: plainly it gets
# exactly the levels left below the limit, so any frame janus adds above its plain run
# shows in the count.

def levels_left(n=0):
    try:
        return levels_left(n + 1)
    except RecursionError:
        return n


def counted(x):  # (a try: janus makes no graph of it and runs it plainly for good)
    try:
        depth = levels_left()
    except ValueError:
        depth = -1
    return x + depth


class Counter:
    def __init__(self):
        self.seen = []

    def count(self, x):
        try:
            self.seen.append(levels_left())
        except ValueError:
            pass
        return x + self.seen[-1]


def test_a_function_run_plainly_has_plain_python_s_room():
    """Split at its first call (a split function's `__call__` counts twice), then
    settled plain: the fast path of `JitFunction.__call__`."""
    stats = assert_same(counted, [(1.0,)] * 8)
    assert stats.fallback_calls == 8, stats


def test_a_method_run_plainly_has_plain_python_s_room():
    """Through `BoundJitFunction.__call__` (one more janus frame, counted twice)."""
    import janus

    jitted = janus.jit(Counter.count)
    stats = assert_same(lambda c, x: Counter.count(c, x), [(1.0,)] * 6, make_state=Counter,
                        jitted=lambda c, x: jitted.__get__(c)(x), stats_of=jitted)
    assert stats.calls == 6, stats


def test_a_disabled_janus_runs_with_plain_python_s_room(monkeypatch):
    import janus

    monkeypatch.setattr(janus.config, "disabled", True)
    assert_same(counted, [(1.0,)] * 3)


def napping(x):  # (a try: run plainly for good; the sleep lets the other thread in)
    try:
        time.sleep(0.0005)
    except ValueError:
        pass
    return x + 1.0


def test_threads_leave_the_recursion_limit_as_it_was():
    """Two threads' plain runs overlapping and ending out of order (the raise of one
    put back by the other) must not leave the limit raised."""
    import janus

    jitted, limit = janus.jit(napping), sys.getrecursionlimit()
    threads = [threading.Thread(target=lambda: [jitted(1.0) for _ in range(200)])
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sys.getrecursionlimit() == limit
    assert jitted.stats.calls == 400


# -- plain Python's room for a helper converted code runs plainly (F368) ------------------
# A helper janus does not convert (a try) runs plainly from converted code (profiled,
# mixed, a split function's Python): with the room plain Python has at its call, not the
# converted run's (4 frames a level: ~3x deeper).

def scaled(x):  # converted: calls the helper from a callee, a level down
    return x * 2.0 + float(levels_left())


def probed(x, deep):
    y = x * 2.0
    if deep:
        y = y + scaled(x) + float(levels_left()) if deep > 1 else y + float(levels_left())
    return y


def test_a_helper_converted_code_runs_plainly_has_plain_python_s_room():
    calls = [(tf.constant(float(i)), (0, 1, 0, 2)[i % 4]) for i in range(16)]
    stats = assert_same(probed, calls)
    assert stats.profile_calls >= 1 and stats.graph_calls >= 3 and stats.segmented_calls >= 1, stats
    assert stats.internal_errors == 0, stats


class Tally:
    def __init__(self):
        self.count, self.hist, self.saved = 0, [], None


def every_other_break(s, x):  # (a break on odd calls: split, its Python run as it is)
    acc = x * 0.5
    s.hist.append(levels_left())
    s.count += 1
    if s.count % 2 == 1:
        s.saved = acc.numpy()
    return acc


def test_a_split_function_s_own_python_has_plain_python_s_room(any_size):
    # (F476: once the mixed runner settled plain (call 10), the split's function ran
    # under its `__call__` without that frame's room: 2 levels fewer than plain Python's)
    stats = assert_same(every_other_break, [(tf.constant([float(i)]),) for i in range(16)],
                        make_state=Tally)
    assert stats.segmented_calls >= 1, stats


# -- a trace's own room (F368) -----------------------------------------------------------
# A recursion janus does not batch (a Python float per level) is traced inline, 2 frames a
# level (the runtime's call, the converted copy). The trace had no room of its own: it
# ran under the limit it met (an enclosing run's room, or the user's under a deep
# stack), and a trace 480 levels deep under a few hundred frames of the user's met a
# RecursionError inside janus's tracer.

class Link:
    def __init__(self, x, nxt=None):
        self.x, self.nxt = x, nxt


def link_chain(length: int) -> Link:
    head = None
    for i in range(length):
        head = Link(float(i % 7), head)
    return head


CHAINS = [link_chain(480), link_chain(300)]


def link_sum(node):  # (a float: not a batched recursion, the trace inlines it)
    if node is None:
        return 0.0
    return node.x * 0.01 + 0.5 * link_sum(node.nxt)


def chained(x, k):
    return x * 2.0 + link_sum(CHAINS[k % 2])


def under(frames: int, fn, *args):
    """`fn(*args)` called under `frames` more frames of plain recursion."""
    return fn(*args) if frames <= 0 else under(frames - 1, fn, *args)


@pytest.mark.parametrize("frames", [0, 250, pytest.param(350, marks=pytest.mark.slow)])
def test_a_deep_recursion_traced_under_a_deep_stack_makes_a_graph(frames):
    import janus

    jitted = janus.jit(chained)
    calls = [(tf.constant([float(i), 1.0]), 0) for i in range(8)]
    stats = assert_same(lambda x, k: under(frames, chained, x, k), calls,
                        jitted=lambda x, k: under(frames, jitted, x, k), stats_of=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.graph_calls >= 4, stats


# (the same, from the other places converted code calls from: a loop's body, a method, a
# converted recursion a few levels down, an `or`, a lambda, a comprehension, a `with`)

def in_a_loop(x, deep):
    y = x * 1.0
    for i in range(deep):
        y = y + float(levels_left()) * (i + 1)
    return y


class Probe:
    def __init__(self, scale):
        self.scale = scale

    def levels(self, x):
        return x * self.scale + float(levels_left())


def in_a_method(x, deep):
    return Probe(2.0).levels(x) if deep else x


def down(n):
    return float(levels_left()) if n == 0 else 1.0 + down(n - 1)


def in_a_recursion(x, deep):
    return x + down(5 * deep)


def in_an_or(x, deep):
    return x + float(deep and levels_left() or -1)


def in_a_lambda(x, deep):
    count = lambda: levels_left() + deep  # noqa: E731
    return x + float(count())


def in_a_comprehension(x, deep):
    return x + float(sum([levels_left() for _ in range(deep + 1)]))


def in_a_with(x, deep):
    with tf.name_scope("probe"):
        y = x + float(levels_left())
    return y


@pytest.mark.parametrize("fn", [in_a_loop, in_a_method, in_a_recursion, in_an_or, in_a_lambda,
                                in_a_comprehension, in_a_with], ids=lambda f: f.__name__)
def test_a_helper_called_from_any_converted_place_has_plain_python_s_room(fn):
    calls = [(tf.constant(float(i)), (1, 2, 1, 0)[i % 4]) for i in range(10)]
    stats = assert_same(fn, calls)
    assert stats.internal_errors == 0, stats
