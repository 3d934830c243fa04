"""janus stops generating graphs once it learned a failure that comes back (zoo p19, p01,
p34): the calls still match plain Python, and the generations stay few. Without the
fixes each of these made a graph (or failed one) on most calls."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


class Counter:
    def __init__(self):
        self.batch = 0
        self.sums = {"a": tf.Variable(0.0), "b": tf.Variable(1.0)}
        self.history = {"a": [], "b": []}


def epochs(s, x):
    """A step counter (fed once it changes) and, every 4th call, a tensor's value
    rounded by numpy: a graph break inside a loop of the function's own."""
    s.sums["a"].assign_add(tf.reduce_sum(x))
    s.sums["b"].assign_add(tf.reduce_mean(x))
    s.batch += 1
    if s.batch % 4 == 0:
        for name, total in s.sums.items():
            s.history[name].append(np.round(float(total.read_value()), 4))
    return s.sums["a"] * 2.0


def test_a_tensor_value_rounded_as_python_splits_instead_of_a_graph_per_count():
    calls = [(tf.constant(np.arange(3, dtype=np.float32) + i),) for i in range(28)]
    jitted = janus.jit(epochs)
    stats = assert_same(epochs, calls, make_state=Counter, jitted=jitted)
    assert stats.generations <= 3, (stats, janus.explain(jitted))


def rounded_epochs(s, x):
    """As `epochs`, rounded by Python's round(): one graph (graphgen/rounded.py), a graph
    per outcome of the every-4th-call test; its lists only appended to in one outcome."""
    s.sums["a"].assign_add(tf.reduce_sum(x))
    s.batch += 1
    if s.batch % 4 == 0:
        for name, total in s.sums.items():
            s.history[name].append(round(float(total.read_value()), 4))
    return s.sums["a"] * 2.0


def test_a_list_appended_to_in_one_outcome_of_a_test_settles():
    # (the other outcome's graph failed its in-graph guard first: the list's length
    # guard of this outcome's graph was never generalized, a graph per length)
    calls = [(tf.constant(np.arange(3, dtype=np.float32) + i),) for i in range(60)]
    jitted = janus.jit(rounded_epochs)
    counts = []
    stats = assert_same(rounded_epochs, calls, make_state=Counter, jitted=jitted,
                        observe=lambda _: counts.append(janus.stats(jitted).generations))
    assert stats.generations <= 7 and counts[39] == counts[-1], (counts, janus.explain(jitted))

def printing(x, step, log):
    y = tf.nn.relu(x) * 2.0
    if step % 5 == 0:
        print(f"step {step}: {float(tf.reduce_sum(y)):.3f}")
        log.append(step)
    return y


def test_a_test_whose_general_graph_failed_is_not_made_general_again():
    calls = [(tf.constant([float(i), -1.0]), i, []) for i in range(30)]
    jitted = janus.jit(printing)
    stats = assert_same(printing, calls, jitted=jitted)
    assert stats.generation_failures <= 1 and stats.generations <= 4, \
        (stats, janus.explain(jitted))


def line_search(w, g):
    """`while <tensor> and <Python counter>`: a test janus keeps specialized."""
    lr = tf.constant(1.0)
    tries = 0
    while tf.reduce_sum(w - lr * g) > 0.0 and tries < 5:
        lr = lr * 0.5
        tries += 1
    return lr, tries


def test_a_test_kept_specialized_does_not_make_a_graph_per_call():
    rng = np.random.RandomState(0)
    calls = [(tf.constant(rng.randn(3).astype(np.float32) + 0.5),
              tf.constant(np.abs(rng.randn(3)).astype(np.float32) + 0.5)) for _ in range(40)]
    jitted = janus.jit(line_search)
    stats = assert_same(line_search, calls, jitted=jitted)
    assert stats.generations <= 10, (stats, janus.explain(jitted))


class Book:
    def __init__(self):
        self.rate, self.total, self.log = 0.5, 0.0, []


def bookkeeping(b, x):
    """Two Python numbers and an append-only list's length all change on every call
    (actor-critic's `running_reward` and `episode_lengths`): the first guard that fails
    generalizes them all, one generation, not one per guard."""
    y = x * b.rate + b.total
    b.total = b.total + 1.0
    b.rate = b.rate * 0.9
    b.log.append(b.total * 2)
    return y


def test_numbers_and_lengths_that_change_together_are_fed_in_one_generation():
    calls = [(tf.constant([1.0, 2.0 + i]),) for i in range(10)]
    stats = assert_same(bookkeeping, calls, make_state=Book)
    # (the profiled calls saw them change: fed from the first graph, F334/F335; before,
    # the first graph guarded them and a second fed them)
    assert stats.generations == 1 and stats.graph_calls >= 8, stats


class Depths:
    def __init__(self):
        self.w = tf.Variable([[0.5, -0.25], [0.1, 0.3]])
        self.depths = []


def encode(s, node, depth=0):
    if isinstance(node, list):
        h = tf.add_n([encode(s, c, depth + 1) for c in node])
        return tf.tanh(h @ s.w)
    s.depths.append(depth)
    return node


def encode_tree(s, tree):
    return encode(s, tree)


def _tree(i):
    leaf = tf.constant([[0.5, -1.0]]) * (i + 1)
    return [[leaf, leaf], leaf] if i % 3 == 0 else [leaf, [leaf]] if i % 3 == 1 else \
        [[leaf], [leaf, [leaf]]]


def test_a_list_only_appended_to_is_unassumed_when_another_guard_failed_first():
    """Zoo p13: a recursive encoder appends every leaf's depth to a heap list, and the
    trees change shape between calls. The tree's guard failed first on every call, so the
    list's length guard (it grows every call) was never generalized: a graph per call,
    then janus stopped generating and ran the function eagerly."""
    calls = [(_tree(i % 3),) for i in range(24)]
    stats = assert_same(encode_tree, calls, make_state=Depths)
    assert stats.graph_calls >= 18 and stats.generations <= 5, stats


class Experts:
    def __init__(self):
        self.weights = [tf.Variable(float(e + 1)) for e in range(3)]


def route(s, x, which):
    """Each expert used only if a token picks it (zoo p42): the gradient of an unused
    expert is None, so the tests stay per outcome, a graph per subset of experts used."""
    with tf.GradientTape() as tape:
        out = tf.zeros([])
        for e, w in enumerate(s.weights):
            n = tf.reduce_sum(tf.cast(tf.equal(which, e), tf.float32))
            if n == 0:
                continue
            out += w * n * tf.reduce_sum(x)
    grads = tape.gradient(out, s.weights)
    return out, [g for g in grads if g is not None]


def test_a_graph_per_outcome_of_several_tests_is_found_and_reused():
    # four subsets of experts recurring in turn: before, each call tried two outcomes'
    # graphs, parked one graph per call and gave up after four regenerations
    subsets = [[0, 1, 2], [0, 0, 1], [1, 2, 2], [0, 2, 0]]
    calls = [(tf.constant([1.0, float(i)]), tf.constant(subsets[(i * 7 // 3) % 4]))
             for i in range(36)]
    jitted = janus.jit(route)
    stats = assert_same(route, calls, make_state=Experts, jitted=jitted)
    assert stats.generations <= 7 and stats.graph_calls >= 24, (stats, janus.explain(jitted))


def printed_branch(x):
    """A test kept per outcome (its branch prints: its general graph fails)."""
    y = x * 2.0
    if tf.reduce_sum(x) > 0:
        print("positive")
        y = y + 1.0
    return y


def test_a_graph_failing_its_first_call_as_the_one_it_replaced_is_not_traced_again(
        monkeypatch):
    """(F353) A trace that expects the outcome the graph it replaced failed on, again (as
    F338's stand-in bug made it, here the profile's outcome forced to True): each new
    graph failed its first call, one generation per call until 4 in 24 calls gave up
    (5 generations in 15 calls). Now the second such graph gives the site up to Python
    at once, and janus.explain says why."""
    from janus.profiler.profile import SiteProfile
    stable = SiteProfile.stable_outcome
    monkeypatch.setattr(SiteProfile, "stable_outcome", property(
        lambda record: True if record.tensor_tests else stable.fget(record)))
    pos, neg = tf.constant([1.0, 2.0]), tf.constant([-1.0, -2.0])
    jitted = janus.jit(printed_branch)
    stats = assert_same(printed_branch, [(pos,)] * 3 + [(neg,), (pos,), (neg,), (neg,)] * 3,
                        jitted=jitted)
    assert stats.generations <= 3, (stats, janus.explain(jitted))
    assert stats.graph_calls >= 2, stats
    assert "failed it on its first call too" in janus.explain(jitted)
