"""Heap numbers the profiled calls saw change, fed from the first graph
(graphgen/varying_numbers.py, janus/number_reads.py), and heap lists they saw grow taken as
only appended to from the first graph.

A running reward, a decayed epsilon, a step counter: read from the heap and changed by
every call. Before, the first graph guarded each by value, the guard failed on the next
call and only a second generation fed it (the ladder); so with the length of a list
every call appends to (actor-critic's `episode_lengths`). Now the profile saw them change
and the first graph feeds them: one generation. A number the trace needs as a Python
value (`range(a.depth)`, an index into a Python list, a dict key) fails the fed trace:
that generation is traced again with it guarded, as before, and the others stay fed.
"""
import importlib.util

import janus
import tensorflow as tf

from tests.differential import assert_same


class Agent:
    def __init__(self):
        self.running_reward = 0.0
        self.epsilon = 1.0
        self.steps = 0
        self.stats = {"seen": 0, "total": 0.0}
        self.lengths = []
        self.w = tf.Variable([[0.5, -0.25], [0.125, 1.0]])


def actor_step(a, x):
    y = tf.reduce_sum(tf.matmul(x, a.w))
    a.running_reward = 0.05 * 2.0 + 0.95 * a.running_reward
    a.epsilon = max(0.05, a.epsilon * 0.9)
    a.steps += 1
    a.stats["seen"] = a.stats["seen"] + 1
    a.stats["total"] += 0.5
    a.lengths.append(a.steps)  # (only appended to: its length not guarded)
    return y * a.epsilon + a.running_reward + a.steps + a.stats["total"]


def test_heap_numbers_and_lists_changed_by_every_call_are_fed_by_the_first_graph():
    x = tf.constant([[1.0, 2.0]])
    stats = assert_same(actor_step, [(x,)] * 10, make_state=Agent)
    assert stats.generations == 1, stats
    assert stats.graph_calls >= 6, stats


SOURCE = """
STEP = 0
EPS = 1.0

def decayed(x):
    global STEP, EPS
    STEP += 1
    EPS = EPS * 0.5
    return x * EPS + STEP
"""


def _fresh_decayed(path, name: str):
    """`decayed` of a module of its own (each side its own globals)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.decayed


def test_globals_changed_by_every_call_are_fed_by_the_first_graph(tmp_path):
    path = tmp_path / "varying_globals.py"
    path.write_text(SOURCE)
    x = tf.constant([1.0, 3.0])
    jitted = janus.jit(_fresh_decayed(path, "varying_globals_janus"))
    stats = assert_same(_fresh_decayed(path, "varying_globals_plain"), [(x,)] * 10,
                        jitted=jitted)
    assert stats.generations == 1, stats
    assert stats.graph_calls >= 6, stats


class Counted:
    def __init__(self):
        self.depth = 1
        self.k = 0
        self.scale = 1.0
        self.names = ["a", "b", "c"]
        self.table = {0: 1.5, 1: -2.0, 2: 0.25}
        self.lengths = []


def misused(a, x):
    for _ in range(a.depth):  # a count: needs the Python value
        x = x * 0.5
    a.depth = 1 + a.depth % 2
    a.scale = a.scale * 1.5  # fed
    return x * a.scale + a.table[a.k]


def test_a_number_used_as_a_count_stays_guarded_the_others_are_fed():
    x = tf.constant([2.0, 4.0])
    stats = assert_same(misused, [(x,)] * 12, make_state=Counted)
    assert stats.generation_failures == 0, stats
    assert stats.generations <= 2, stats  # (one graph per depth, scale fed)
    assert stats.graph_calls >= 6, stats


def indexed(a, x):
    a.k = (a.k + 1) % 3  # a key, an index: its value needed
    print(a.names[a.k], f"{a.scale:.3f}")
    a.scale = a.scale * 0.5
    return x * a.table[a.k] + a.scale


def test_numbers_used_as_an_index_a_key_and_in_text_stay_correct():
    x = tf.constant([2.0, 4.0])
    stats = assert_same(indexed, [(x,)] * 12, make_state=Counted)
    assert stats.calls == 12, stats


def unchanged(a, x):
    return x * a.scale + a.depth  # read, never changed: guarded by value


def test_numbers_the_profile_saw_unchanged_stay_guarded():
    x = tf.constant([2.0, 4.0])

    def bump(state):
        state.scale = 3.0  # (changed once, after the first graph)
        return (x,)

    stats = assert_same(unchanged, [(x,)] * 5 + [bump] + [(x,)] * 4, make_state=Counted)
    assert stats.graph_calls >= 6, stats


def read_history(a, x):
    a.lengths.append(a.k)
    a.k += 1
    return x * float(sum(a.lengths)) + len(a.lengths) + a.lengths[-1]  # (read: copied)


def test_a_grown_list_read_after_all_is_copied_and_guarded():
    x = tf.constant([2.0, 4.0])
    stats = assert_same(read_history, [(x,)] * 10, make_state=Counted)
    assert stats.graph_calls >= 4, stats
