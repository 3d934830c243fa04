"""A test on a fed counter whose generalization is blocked (heap or print effects in its
branch: `if step % 4 == 0: print(...)`) keeps a graph per outcome: both graphs stay, and
a call whose outcome the first one does not hold runs the other (zoo10-F62); before,
the failing graph was dropped and traced again at every change of outcome."""
import tensorflow as tf

import janus
from tests.differential import assert_same


class State:
    def __init__(self):
        self.step = 0
        self.total = tf.Variable(0.0)


def log_every_4(s, x):
    s.total.assign_add(tf.reduce_sum(x))
    s.step += 1
    if s.step % 4 == 0:
        print("step", s.step)
        s.total.assign(0.0)
    return x * 2.0


def test_both_outcomes_keep_their_graphs():
    calls = [(tf.constant([1.0, float(i)]),) for i in range(40)]
    stats = assert_same(log_every_4, calls, make_state=State)
    assert stats.generations <= 5, stats
    assert stats.graph_calls >= 28, stats


# F356: a history list only the rare outcome appends to, held with others the graph reads
# (a dict of histories, a list of them): the other outcome's graph copied it without
# touching it and guarded its length; when it grew, the ladder fed it as a stacked tensor,
# which the appending outcome cannot append to (the function ran plainly: 8% graphs).
# Now a list a graph never touches goes unassumed (as a list only appended to, its length
# fed). (The list of lists kept its graphs before too: each list is an item guarded alone.)

class Histories:
    def __init__(self):
        self.step = 0
        self.hist = {"d": [], "g": []}
        self.lists = [[], []]
        self.w = tf.Variable(1.0)


def every_k_in_a_dict(s, x, k):
    s.step += 1
    d = tf.reduce_sum(x * s.w)
    s.hist["d"].append(d)
    if s.step % k == 0:
        s.hist["g"].append(tf.reduce_sum(x * 3.0))
    return d


def every_k_in_a_list(s, x, k):
    s.step += 1
    d = tf.reduce_sum(x * s.w)
    s.lists[0].append(d)
    if s.step % k == 0:
        s.lists[1].append(d * 2.0)
        s.w.assign_add(0.5)
    return d


def every_k_read_later(s, x, k):
    # the rare outcome reads the list's length too: the other outcome's graph feeds it
    s.step += 1
    d = tf.reduce_sum(x * s.w)
    s.hist["d"].append(d)
    if s.step % k == 0:
        s.hist["g"].append(d + float(len(s.hist["g"])))
    return d


def _calls(n=30):
    return [(tf.constant([float(i), 1.0]), 3) for i in range(n)]


def test_a_list_only_the_rare_outcome_appends_to_keeps_graphs():
    stats = assert_same(every_k_in_a_dict, _calls(), make_state=Histories)
    assert stats.graph_calls >= 20, stats


def test_a_list_of_lists_only_the_rare_outcome_appends_to_keeps_graphs():
    stats = assert_same(every_k_in_a_list, _calls(), make_state=Histories)
    assert stats.graph_calls >= 20, stats


def test_a_list_the_rare_outcome_reads_the_length_of_keeps_graphs():
    stats = assert_same(every_k_read_later, _calls(), make_state=Histories)
    assert stats.graph_calls >= 20, stats


# F381: a history every call appends to, whose `len()` only a rare outcome reads (`s.rec =
# len(s.hist)` every k-th call): the common outcome's graph takes the list as only appended
# to; the rare outcome's trace asked `len()` of that stand-in, which had none: Python's
# TypeError was taken for the user's error, graphs were dropped and a graph made per length
# (over 300 calls: 34 graph calls). Now the trace is redone with the length fed: one graph
# per outcome. Other reads of it (`[-1]`, iterating, `in`, truth) are janus's limit, never
# the user's error: the list is copied again, results as plain Python.

class History:
    def __init__(self):
        self.step = 0
        self.hist = []
        self.rec = 0
        self.w = tf.Variable(1.0)


def _every_k(read):
    def step(s, x, k):
        s.step += 1
        d = tf.reduce_sum(x * s.w)
        s.hist.append(d)
        if s.step % k == 0:
            s.rec = read(s)
            s.w.assign_add(0.5)
        return d
    return step


def test_the_length_a_rare_outcome_reads_of_an_appended_list_is_fed():
    step = _every_k(lambda s: len(s.hist))
    stats = assert_same(step, _calls(60), make_state=History, plain_trial=False)
    assert stats.graph_calls >= 48 and stats.generations <= 4, stats
    assert stats.generation_failures == 0, stats


def _last(s):
    return s.hist[-1] * 2.0


def _summed(s):
    total = 0.0
    for d in s.hist:
        total += d
    return total


def _contains(s):
    return float(3 in s.hist)


def _truth(s):
    return 1 if s.hist else 0


def test_other_reads_a_rare_outcome_makes_of_an_appended_list_are_janus_limits():
    for read in (_last, _summed, _contains, _truth):
        step = _every_k(read)
        jitted = janus.jit(step)
        assert_same(step, _calls(20), make_state=History, jitted=jitted)
        assert "AppendOnlyList" not in str(jitted.last_failure_reason), read.__name__


def test_a_type_error_about_a_stand_in_is_janus_limit():
    from janus.errors import ConversionError
    from janus.graphgen.stand_in_calls import misused
    error = misused(TypeError("object of type 'AppendOnlyList' has no len()"))
    assert isinstance(error, ConversionError) and "AppendOnlyList" in str(error)
    assert misused(TypeError("object of type 'Model' has no len()")) is None
    assert misused(ValueError("'AppendOnlyList'")) is None


# F455: a step that logs every 2nd call and resets its metrics every 4th (two periodic
# tests on a fed step counter, a print in one branch, an append in the other) needs a
# graph per combination of outcomes, each first met by a call whose outcome no graph
# has. Before: the trace took the last profiled call's outcome (one call behind a test
# of period 2), the graphs of both tests shared one count of regenerations (4 in 24
# calls), and the function ended up split: 2 graph calls of 36. Now the call that meets
# a new outcome traces its own graph (the trace knows the fed counter's value:
# graphgen/known_numbers.py), counted per test.

class Metrics:
    def __init__(self):
        self.acc = tf.Variable(0.0)
        self.n = 0
        self.log = []
        self.total = 0.0


def log_2_reset_4(s, x):
    s.acc.assign_add(tf.reduce_sum(x))
    s.n += 1
    if s.n % 2 == 0:
        print(f"step {s.n}: {float(s.acc):.3f}")
    if s.n % 4 == 0:
        s.log.append(float(s.acc))
        s.acc.assign(0.0)
    return s.acc * 2.0


def log_3_append_5(s, x):
    s.acc.assign_add(tf.reduce_sum(x))
    s.n += 1
    if s.n % 3 == 0:
        print(f"step {s.n}: {float(s.acc):.3f}")
    if s.n % 5 == 0:
        s.log.append(float(s.acc))
        s.acc.assign(0.0)
    return s.acc * 2.0


def log_2_count_5(s, x):
    s.acc.assign_add(tf.reduce_sum(x))
    s.n += 1
    if s.n % 2 == 0:
        print("loss", float(s.acc))
    if (s.n + 1) % 5 == 0:
        s.total = s.total + 1.0
    return s.acc * 2.0


def _counted(n):
    return [(tf.constant([float(i), 1.0]),) for i in range(n)]


def test_f455_log_every_2nd_reset_every_4th_runs_as_graphs():
    stats = assert_same(log_2_reset_4, _counted(36), make_state=Metrics)
    assert stats.graph_calls >= 24, stats  # (28; before: 2)
    assert stats.generations <= 6, stats


def test_f455_two_periodic_tests_of_periods_3_and_5_run_as_graphs():
    stats = assert_same(log_3_append_5, _counted(60), make_state=Metrics)
    assert stats.graph_calls >= 44, stats  # (52; before: 6)
    assert stats.generations <= 8, stats


def test_f455_a_print_every_2nd_and_a_python_count_every_5th():
    stats = assert_same(log_2_count_5, _counted(60), make_state=Metrics)
    assert stats.graph_calls >= 44, stats  # (53; before: 51)
