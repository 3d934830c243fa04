"""Gradients where Python's tape gives None: an input only the branch not taken reads, or
a loop that did not run (graphgen/connectivity.py, F138). TF's gradient of an If or a
While gives such an input zeros; a Keras optimizer skips a None gradient but applies a
zero one. Every janus test compares janus with plain Python call by call."""
import tensorflow as tf

import janus
from janus.graphgen import connectivity
from janus.graphgen.connectivity import CONDITIONAL, UNCONDITIONAL, Iterations
from tests.differential import assert_same


def c(values):
    return tf.constant(values, tf.float32)


def _reaches(build):
    """{name: reach} of what `build(found)` names, inside a traced function."""
    out = {}

    @tf.function(autograph=False)
    def traced():
        target, sources = build()
        found = connectivity.reach([target])
        for name, t in sources.items():
            out[name] = found.get(id(t))
        return target

    traced.get_concrete_function()
    return out


def test_reach_tells_one_sided_branches_loops_and_untouched_inputs_apart():
    def branch():
        a, b, t = tf.identity(1.0), tf.identity(2.0), tf.identity(3.0)
        y = tf.cond(t > 0, lambda: a * 2.0 + t, lambda: b * 3.0 + t)
        return y, {"a": a, "b": b, "t": t}

    assert _reaches(branch) == {"a": CONDITIONAL, "b": CONDITIONAL, "t": UNCONDITIONAL}

    def loop():
        w, h0, n, other = tf.identity(0.5), tf.identity(1.0), tf.identity(3), tf.identity(9.0)
        _, h = tf.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, h * w), [0, h0])
        return h, {"w": w, "h0": h0, "other": other}

    found = _reaches(loop)
    assert found["h0"] == UNCONDITIONAL and found["other"] is None, found
    assert isinstance(found["w"], Iterations) and [d for _, d in found["w"].counts] == [1]


def pick(a, b, t):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = a * 2.0 if tf.reduce_sum(t) > 0 else b * 3.0
    return y, tape.gradient(y, a), tape.gradient(y, b)


def test_an_input_only_the_branch_not_taken_reads_gets_none_in_the_graph_too():
    """(A select of both would give zeros too: graphgen/bool_values.py keeps a float
    conditional of tensors a branch, and the graph keeps its outcome, guarded.)"""
    a, b = tf.constant(1.5), tf.constant(-0.5)
    calls = [(a, b, c([1.0]))] * 5 + [(a, b, c([-1.0]))] * 5 + [(a, b, c([2.0]))] * 4
    stats = assert_same(pick, calls)
    assert stats.graph_calls >= 6, stats  # (a graph per outcome)


def scale(a, t):
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = a * 2.0 if tf.reduce_sum(t) > 0 else a * 3.0
    return y, tape.gradient(y, a)


def test_an_input_both_branches_read_keeps_one_general_branch():
    a = tf.constant(1.5)
    calls = [(a, c([1.0])), (a, c([-1.0]))] * 6
    stats = assert_same(scale, calls)
    assert stats.graph_calls >= 8 and stats.generations == 1, stats


class Weights:
    def __init__(self):
        self.v1, self.v2 = tf.Variable(1.0), tf.Variable(2.0)
        self.opt = tf.keras.optimizers.Adam(0.1)


def step(m, t):
    with tf.GradientTape() as tape:
        if tf.reduce_sum(t) > 0:
            loss = m.v1 * 3.0
        else:
            loss = m.v2 * 5.0
    grads = tape.gradient(loss, [m.v1, m.v2])
    m.opt.apply_gradients([(g, v) for g, v in zip(grads, [m.v1, m.v2]) if g is not None])
    return loss, grads


def test_a_variable_only_one_branch_reads_is_not_updated_by_the_other():
    calls = [(c([1.0]),)] * 4 + [(c([-1.0]),)] * 4 + [(c([1.0]),), (c([-1.0]),)] * 3
    assert_same(step, calls, Weights)


def recur(w, xs, h):
    with tf.GradientTape() as tape:
        tape.watch(w)
        for x in xs:
            h = h * w + x
    return h, tape.gradient(h, w)


def test_a_loop_that_did_not_run_gives_no_gradient_to_what_its_body_reads():
    w = tf.constant(0.5)
    lengths = [2, 3, 0, 1, 0, 4, 2, 0, 3, 5, 0, 2]
    calls = [(w, [c(float(i)) for i in range(n)], c(0.3)) for n in lengths]
    stats = assert_same(recur, calls)
    assert stats.graph_calls >= 6, stats


def inner(a, b, t):
    return a * 2.0 if tf.reduce_sum(t) > 0 else b * 3.0


def outside(fn):
    def train(a, b, t):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = fn(a, b, t)
        return y, tape.gradient(y, [a, b])
    return train


def test_a_tape_outside_the_call_sees_none_for_the_branch_not_taken():
    jitted = janus.jit(inner)
    a, b = tf.constant(1.5), tf.constant(-0.5)
    calls = [(a, b, c([1.0])), (a, b, c([-1.0]))] * 5
    assert_same(outside(inner), calls, jitted=outside(jitted), stats_of=jitted)
    assert jitted(a, b, c([1.0])).numpy() == 3.0  # (no tape: still its graph)
    assert janus.stats(jitted).graph_calls >= 1


def linear(a, b, t):
    return a * 2.0 + b * tf.reduce_sum(t)


def test_a_graph_without_branches_runs_under_a_tape():
    jitted = janus.jit(linear)
    a, b = tf.constant(1.5), tf.constant(-0.5)
    calls = [(a, b, c([1.0])), (a, b, c([-1.0]))] * 5
    stats = assert_same(outside(linear), calls, jitted=outside(jitted), stats_of=jitted)
    assert stats.graph_calls >= 6, stats


def grow(w, limit, h):
    with tf.GradientTape() as tape:
        tape.watch(w)
        while h < limit:
            h = h * w + 1.0
    return h, tape.gradient(h, w)


def test_a_while_loop_that_ran_no_iteration_gives_no_gradient():
    """The graph checks that the loop ran before handing out its gradient: a call whose
    loop did not run reruns plainly, and the graph stays for the others."""
    w = tf.constant(1.5)
    limits = [2.0, 3.0, 0.0, 1.0, 0.0, 4.0, 2.0, 0.0, 3.0, 5.0, 0.0, 2.0, 0.0, 3.0]
    stats = assert_same(grow, [(w, c(n), c(0.3)) for n in limits])
    assert stats.graph_calls >= 6, stats


def grown(w, limit, h):
    while h < limit:
        h = h * w + 1.0
    return h


def test_a_tape_outside_a_loop_that_may_not_run_sees_none_when_it_did_not():
    def train(fn):
        def run(w, limit, h):
            with tf.GradientTape() as tape:
                tape.watch(w)
                y = fn(w, limit, h)
            return y, tape.gradient(y, w)
        return run

    jitted = janus.jit(grown)
    w = tf.constant(1.5)
    calls = [(w, c(n), c(0.3)) for n in [2.0, 3.0, 0.0, 1.0, 0.0, 4.0, 2.0, 0.0]]
    assert_same(train(grown), calls, jitted=train(jitted), stats_of=jitted)
    assert float(jitted(w, c(3.0), c(0.3))) == float(grown(w, c(3.0), c(0.3)))


def _imported(body):
    """`body`'s graph as a graph loaded from the cache has it: imported from its GraphDef
    (branches and loop bodies only in the function library, no FuncGraphs on the ops)."""
    spec = [tf.TensorSpec([], tf.float32)] * 2
    traced = tf.function(body, input_signature=spec, autograph=False).get_concrete_function()
    graph_def = traced.graph.as_graph_def()
    names = [t.name for t in traced.graph.inputs]
    outputs = [t.name for t in traced.graph.outputs]

    def importer(*tensors):
        return tf.graph_util.import_graph_def(graph_def, input_map=dict(zip(names, tensors)),
                                              return_elements=outputs, name="")

    wrapped = tf.compat.v1.wrap_function(importer, spec)
    imported = wrapped.prune(feeds=list(wrapped.graph.inputs),
                             fetches=[wrapped.graph.get_tensor_by_name(n) for n in outputs])
    assert not any(hasattr(op, "_true_graph") or hasattr(op, "_body_graph")
                   for op in imported.graph.get_operations())
    return imported.graph


def test_an_imported_graph_is_read_from_its_function_library():
    def both_sides(a, b):  # each branch reads a and b
        y = tf.cond(a > 0, lambda: a * b, lambda: a - b)
        return tf.while_loop(lambda i, h: i < 1, lambda i, h: (i + 1, h), [0, y])[1]

    def one_side(a, b):  # b only where a > 0
        return tf.cond(a > 0, lambda: a * b, lambda: a * 2.0)

    def loop_reads(a, b):  # b only once the loop ran
        return tf.while_loop(lambda i, h: h < 10.0, lambda i, h: (i + 1, h * b), [0, a])[1]

    assert connectivity.unconditional(_imported(both_sides), 1)
    assert not connectivity.unconditional(_imported(one_side), 1)
    assert not connectivity.unconditional(_imported(loop_reads), 1)
    assert not connectivity.unconditional(_imported(both_sides), None)  # (outputs unknown)


def test_an_input_only_a_branchs_other_outputs_reach_is_not_exact():
    """A tape that may differentiate its own gradient (persistent, nested) differentiates
    the If's outputs TF exports as side outputs too: the variable updated in the branch
    gets zeros there, None in Python (fuzz seed 1810082, the fuzzer's outer tape)."""
    v = tf.Variable(1.0)

    def graph_of(fn):
        return tf.function(fn, input_signature=[tf.TensorSpec([], tf.float32)],
                           autograph=False).get_concrete_function().graph

    def updates_in_branch(a):
        new = tf.cond(a > 0, lambda: v.read_value() + a, lambda: a)
        return a * 2.0, new  # the caller sees the first only

    def branch_of_inputs_only(a):
        return tf.cond(a > 0, lambda: a * 3.0, lambda: a - 1.0), a + 1.0

    assert not connectivity.unconditional(graph_of(updates_in_branch), 1)
    assert connectivity.unconditional(graph_of(branch_of_inputs_only), 1)


def _outer_tape_gradients(fn, xs, watch: bool = True):
    v = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        if watch:
            tape.watch(xs)
        y = fn(xs) * v
    return [None if g is None else g.numpy().tolist() for g in tape.gradient(y, xs + [v])]


def last_only(xs):
    return xs[-1] * 2.0


def all_items(xs):
    total = xs[0] * 0.0
    for x in xs:
        total = total + x * x
    return total


def test_a_list_the_feed_stacks_gives_none_for_items_the_graph_does_not_read():
    """A list whose length varies is stacked by the feed on the host, under the caller's
    tape: the graph's gradient of the stack had zeros for the items before `xs[-1]`,
    Python's tape None (fuzz seed 1820194). Such a call runs plainly; a tape that does
    not watch the items leaves the graph running."""
    for fn in (last_only, all_items):
        jitted = janus.jit(fn)
        for i in range(8):
            xs = [c([1.0 + i, 2.0 * k]) for k in range(2 + i % 3)]
            assert _outer_tape_gradients(jitted, xs) == _outer_tape_gradients(fn, xs)
        graphs = janus.stats(jitted).graph_calls
        for i in range(4):
            xs = [c([1.0 + i, 2.0 * k]) for k in range(2 + i % 3)]
            assert _outer_tape_gradients(jitted, xs, watch=False) == \
                _outer_tape_gradients(fn, xs, watch=False)
        assert janus.stats(jitted).graph_calls > graphs
