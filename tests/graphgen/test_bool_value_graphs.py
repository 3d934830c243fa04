"""`and`/`or`/`not` and conditional expressions as values with tensor operands in graphs
(graphgen/bool_values.py). Before, the trace asked a symbolic tensor's Python truth and
failed (the largest class of failed generations over the fuzz corpus), and janus ran such
functions eagerly. Every test compares janus with plain Python call by call."""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.log = []
        self.steps = 0


def c(values):
    return tf.constant(values, tf.float32)


def either_kind(s, x, k):
    big = tf.reduce_sum(x) > 0.0 or k > 1     # a bool tensor, or a Python bool
    s.steps += 1
    return big, x * 2.0


def test_or_of_a_tensor_and_a_fed_int_keeps_a_graph_per_outcome():
    calls = [(c([1.0, 2.0]), 0)] * 4 + [(c([-1.0, -2.0]), 3)] * 3 + \
        [(c([-1.0, -2.0]), 0)] * 2 + [(c([3.0, 1.0]), 5)] * 3 + [(c([-3.0, 1.0]), 0)] * 3
    stats = assert_same(either_kind, calls, make_state=State)
    assert stats.graph_calls + stats.plain_calls >= 7 and stats.generation_failures <= 1, stats


def noisy(s, value):
    s.log.append(value)
    print("evaluated", value)
    return tf.constant(value) > 0.0


def short_circuit(s, x):
    first = tf.reduce_max(x) > 1.0 or noisy(s, 1.0)     # noisy() only when the max is small
    second = tf.reduce_min(x) > 0.0 and noisy(s, 2.0)
    return first, second


def test_an_operand_that_prints_and_appends_runs_only_where_python_runs_it():
    calls = [(c([2.0, 3.0]),)] * 4 + [(c([0.5, 0.2]),)] * 6 + [(c([2.0, -1.0]),)] * 6 + \
        [(c([2.0, 3.0]),)] * 6
    stats = assert_same(short_circuit, calls, make_state=State)
    assert stats.graph_calls + stats.plain_calls >= 11, stats


def lazy_gather(x, i):
    ok = tf.reduce_sum(x) > 0.0 or tf.gather(x, i) > 0.0    # i out of range: raises
    return ok


def test_a_raising_operand_in_a_tf_cond_runs_only_when_python_runs_it():
    calls = [(c([1.0, 2.0]), 0), (c([-1.0, -2.0]), 1), (c([1.0, 2.0]), 5),
             (c([-1.0, 2.0]), 1), (c([1.0, 2.0]), 7), (c([-3.0, 2.0]), 0),
             (c([1.0, 2.0]), 9), (c([-1.0, -2.0]), 4), (c([2.0, 2.0]), 4),
             (c([-2.0, 3.0]), 1), (c([1.0, 2.0]), 3)]
    stats = assert_same(lazy_gather, calls)
    assert stats.graph_calls + stats.plain_calls >= 6, stats


def ifexp_in_loop(x, n):
    acc = tf.zeros([])
    for i in range(n):
        y = x[i] if x[i] > 0 else -x[i]
        flag = x[i] < 0 or acc > 4.0
        acc = acc + y
        if flag and acc > 6.0:
            break
    return acc


def test_a_conditional_and_an_or_inside_a_loop_generalized_to_a_while_loop():
    rng = np.random.default_rng(3)
    calls = [(c(rng.normal(size=6) * 3.0), 6) for _ in range(12)]
    stats = assert_same(ifexp_in_loop, calls)
    assert stats.graph_calls + stats.plain_calls >= 8 and stats.generations <= 2, stats


def not_value(s, x):
    empty = not tf.reduce_any(x > 0.0)   # a Python bool in plain Python
    s.steps += 1
    return empty, tf.reduce_sum(x)


def test_not_of_a_tensor_as_a_value_is_a_python_bool():
    calls = [(c([1.0]),)] * 4 + [(c([-1.0]),)] * 3 + [(c([1.0]),)] * 2
    stats = assert_same(not_value, calls, make_state=State)
    assert stats.graph_calls + stats.plain_calls >= 4, stats


def fed_numbers(x, k, m):
    first = k or m                  # Python ints fed to the graph
    larger = k if k > m else m
    return x * first, larger


def test_fed_numbers_of_one_type_are_one_generalized_graph():
    pairs = [(1, 2), (0, 5), (3, 1), (0, 0), (7, 2), (2, 9), (0, 4), (5, 5), (0, 1), (8, 3),
             (4, 0), (0, 7), (6, 1), (0, 2), (9, 9), (1, 0)]
    calls = [(c([1.0]), 0, 2)] * 3 + [(c([1.0]), k, m) for k, m in pairs]
    stats = assert_same(fed_numbers, calls)
    assert stats.graph_calls + stats.plain_calls >= 11 and stats.generations <= 6, stats


LIMIT = 2.0


def host_scalar(s, x, max_steps):
    v = tf.reduce_max(x).numpy()
    w = tf.reduce_min(x).numpy()
    s.steps += 1
    done = v > LIMIT or s.steps >= max_steps      # np.bool_ or a Python bool
    widest = v if v > 1.0 else w                  # numpy float32 either way
    return done, widest


def test_numpy_scalars_from_numpy_standing_in_the_graph():
    calls = [(c([1.0, -3.0]), 100)] * 4 + [(c([3.0, 1.0]), 100)] * 2 + \
        [(c([1.0, -0.5]), 100), (c([0.5, -4.0]), 100), (c([5.0, -0.5]), 100)] * 2 + \
        [(c([1.0, -3.0]), 100)] * 5 + [(c([3.0, 1.0]), 100)] * 5
    stats = assert_same(host_scalar, calls, make_state=State)
    assert stats.graph_calls + stats.plain_calls >= 10, stats


def python_raise(x, xs):
    ok = tf.reduce_sum(x) > 0.0 or xs[5] > 0.0      # IndexError where Python evaluates it
    return ok


def test_an_operand_raising_in_python_raises_only_where_python_evaluates_it():
    calls = [(c([1.0]), [1.0])] * 4 + [(c([-1.0]), [1.0])] * 2 + [(c([2.0]), [1.0])] * 6 + \
        [(c([-1.0]), [1.0])] + [(c([3.0]), [1.0])] * 4
    stats = assert_same(python_raise, calls)
    assert stats.graph_calls >= 10, stats


def vector_truth(x):
    return x * (1.0 if x > 0.0 else 0.5)    # ValueError in Python for 2+ elements


def test_the_truth_of_a_one_element_tensor_and_of_a_vector_are_pythons():
    """F54 (boolv10): a vector's truth as a value raised janus's own ValueError (an
    internal error); a one-element tensor's is Python's bool, also in a graph."""
    calls = [(c([1.0]),)] * 4 + [(c([1.0, 2.0]),)] * 2 + [(c([3.0]),)] * 3
    stats = assert_same(vector_truth, calls)
    assert stats.graph_calls >= 3, stats


def chained(x, k, n):
    inside = -0.5 < tf.reduce_mean(x) < 0.5          # `and` of two tensor comparisons
    if 0 <= k < n <= 3:
        x = x * 2.0
    count = k + (1 if 0.0 < tf.reduce_max(x) <= 2.0 or k > n else 0)
    return inside, count, x


def test_chained_comparisons_of_tensors_as_values_and_tests():
    calls = [(c([0.1]), 0, 2)] * 4 + [(c([3.0]), 1, 2)] * 3 + [(c([0.2]), 2, 1)] * 3 + \
        [(c([-2.0]), 0, 3)] * 3 + [(c([0.1]), 0, 2)] * 2
    stats = assert_same(chained, calls)
    assert stats.graph_calls >= 5, stats


def walk(s, x, n):
    for t in range(n):
        force = 0.5 if tf.reduce_sum(x) > 1.0 else -0.25    # two constants
        x = x + force
        if tf.reduce_max(x) > 4.0:
            break
    s.steps += 1
    return x


def test_a_conditional_of_two_constants_is_a_select_not_a_branch():
    """In the loop's tf.while_loop the conditional expression is one select of the two
    constants; the tf.cond traced for it is left without a reader (pruned)."""
    import janus

    calls = [(c([v, v]), n) for v, n in ((0.1, 9), (2.0, 9), (-3.0, 30), (0.6, 30),
                                          (1.5, 2), (-0.5, 30), (3.0, 1))]
    fn = janus.jit(walk)
    stats = assert_same(walk, calls, make_state=State, jitted=fn)
    assert stats.graph_calls >= 3, stats
    graph = fn.specializations[-1].concrete.graph
    live_ifs = [name for f in graph.as_graph_def().library.function
                for name in _reached(f) if name in {n.name for n in f.node_def
                                                    if n.op in ("If", "StatelessIf")}]
    assert not live_ifs, live_ifs


def _reached(function) -> set:
    """The nodes of a FunctionDef its results (and control results) depend on."""
    nodes = {n.name: n for n in function.node_def}
    stack = [v.split(":")[0] for v in list(function.ret.values()) +
             list(function.control_ret.values())]
    seen = set()
    while stack:
        name = stack.pop().lstrip("^").split(":")[0]
        if name in seen or name not in nodes:
            continue
        seen.add(name)
        stack.extend(nodes[name].input)
    return seen


class Pole:
    """A numpy-style environment: `done` an `or` of scalar comparisons, made a bool."""

    def __init__(self):
        self.x, self.theta, self.steps = 0.0, 0.0, 0

    def step(self, push):
        self.x = self.x + 0.1 * push
        self.theta = self.theta - 0.05 * push
        self.steps += 1
        done = abs(self.x) > 0.3 or abs(self.theta) > 0.12 or self.steps >= 9
        return self.x, bool(done)


def balance(env, w, start):
    env.x, env.theta, env.steps = start, -start, 0
    pushes = []
    for t in range(20):
        push = tf.reduce_sum(w) * (t % 3 - 1.0) + env.x
        pushes.append(push)
        _, done = env.step(push)
        if done:
            break
    return tf.stack(pushes), env.steps


def test_an_or_of_scalar_comparisons_is_selects_not_branches():
    """`abs(x) > a or abs(theta) > b or steps >= m` in the loop's body: both operands of
    each `or` are a few scalar ops that cannot raise, computed and selected (no live
    tf.cond), the `or`'s value Python's in every call."""
    import janus

    calls = [(c([v, 0.1]), s) for v, s in ((0.1, 0.0), (0.9, 0.05), (-0.3, 0.2), (0.02, -0.1),
                                           (0.4, 0.25), (-0.05, 0.0), (0.0, 0.29))]
    fn = janus.jit(balance)
    stats = assert_same(balance, calls * 2, make_state=Pole, jitted=fn)
    assert stats.graph_calls >= 6, stats
    loops = [spec for spec in fn.specializations if {"While", "StatelessWhile"} &
             set(spec.op_histogram())]
    assert loops, [spec.op_histogram() for spec in fn.specializations]
    graph = loops[-1].concrete.graph
    live_ifs = [name for f in graph.as_graph_def().library.function
                for name in _reached(f) if name in {n.name for n in f.node_def
                                                    if n.op in ("If", "StatelessIf")}]
    assert not live_ifs, live_ifs


class Flags:
    def __init__(self):
        self.on = tf.Variable(False, trainable=False)
        self.count = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.log = []


def variable_tests(s, x):
    """`if s.on:`, `not s.count`, `s.on or ...` on variables (F403): eagerly, bool() reads
    the variable; in a trace, the variable's value is tested as a tensor's is."""
    y = x * 2.0 if s.on else x
    if not s.count:
        s.log.append("first")
    s.count.assign_add(1)
    s.on.assign(tf.reduce_sum(x) > 3.0)
    while s.count < 2:  # (`count < 2` is a tensor: tested as before)
        s.count.assign_add(1)
    return y, s.on or tf.reduce_min(x) > 5.0


def test_the_truth_of_a_variable_is_its_value_in_a_graph():
    calls = [(c([1.0, 0.5 * n]),) for n in range(6)] + [(c([1.0, 4.0 + n]),) for n in range(8)]
    stats = assert_same(variable_tests, calls, make_state=Flags)
    assert stats.graph_calls >= 5, stats


def updated_then_tested(s, x):
    s.on.assign(tf.reduce_max(x) > 1.0)  # (the test reads the trace's own update)
    if s.on:
        return x + 1.0
    return x


def test_a_variable_updated_in_the_call_is_tested_with_its_new_value():
    calls = [(c([float(n % 3), 0.5]),) for n in range(10)]
    stats = assert_same(updated_then_tested, calls, make_state=Flags)
    assert stats.graph_calls >= 5, stats


def numbers_of_variables(s, x):
    """`bool(s.on)`, `int(s.count)`, `float(...)` of variables (F403: graphgen/
    stand_in_calls reads their values as it reads a tensor's)."""
    s.count.assign_add(1)
    done = bool(s.on)
    if not done:
        s.on.assign(tf.reduce_max(x) > 5.0)
    s.log.append(done)
    if int(s.count) > 3:
        print("past warm-up")
    return x * float(s.count), done


def test_bool_and_int_of_a_variable_are_its_value_in_a_graph():
    calls = [(c([1.0, float(n)]),) for n in range(12)]
    stats = assert_same(numbers_of_variables, calls, make_state=Flags)
    assert stats.graph_calls >= 4, stats
