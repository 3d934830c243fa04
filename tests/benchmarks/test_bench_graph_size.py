"""benchmarks/graph_size.py: janus's graph next to an expert's, traced, run and executed
(fields and counts, not timings)."""
import types

import numpy as np
import tensorflow as tf

from benchmarks import graph_size


class _State:
    def __init__(self):
        self.w = tf.Variable(np.ones((3,), np.float32))


def _step(state, x):
    h = x
    for _ in range(4):  # unrolled or a loop: either way janus's graph holds it
        h = h * state.w + 1.0
    state.w.assign_sub(0.01 * h)
    return tf.reduce_sum(h)


def _expert(state):
    @tf.function(autograph=False)
    def graph(x):
        _, h = tf.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, h * state.w + 1.0), (0, x))
        state.w.assign_sub(0.01 * h)
        return tf.reduce_sum(h)

    return lambda x: graph(x)


def _workload():
    xs = [(tf.constant(np.full((3,), i, np.float32)),) for i in range(40)]
    return types.SimpleNamespace(make_state=_State, step=_step, expert=_expert,
                                 batches=lambda n: xs[:n])


def test_sizes_of_janus_s_graph_and_the_expert_s():
    row = {"model": "toy", "size": "tiny", **graph_size.measure_workload(_workload())}
    janus, expert = row["janus"], row["expert"]
    for r in (janus, expert):
        assert r["traced_nodes"] > 0 and r["run_nodes"] > 0, r
        assert r["executed"] > 0 and r["traced_ops"]["Mul"] >= 1, r
        assert sum(r["executed_ops"].values()) >= r["executed"] - 1
    # the expert's loop is a while loop: lowered, its body is counted as in a loop
    assert expert["run_loop_nodes"] > 0 and expert["executed_in_loops"] > 0, expert
    assert "While" in expert["traced_ops"] or "StatelessWhile" in expert["traced_ops"]
    text = graph_size.table([row], top=5)
    assert "toy" in text and "expert" in text and "j.exec" in text
    assert len(text.splitlines()) == 5 + 3 + 5  # 3 head + 2 rows, blank + 2 head, 5 ops


def test_grappler_a_b_merges_janus_s_duplicate_constants():
    workload = _workload()
    row = {"model": "toy", "size": "tiny",
           **graph_size.measure_workload(workload, profile=False, grappler=True)}
    g = row["grappler"]
    assert g["merged_run_nodes"] < g["janus_run_nodes"], g  # (four `1.0`s, one)
    assert g["janus_cpu_us"] > 0 and g["merged_cpu_us"] > 0
    assert "constant folding on" in graph_size.table([row])


def test_traced_ops_count_library_functions():
    @tf.function(autograph=False)
    def f(x):
        return tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.sin(x)), (0, x))[1]

    concrete = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    ops = graph_size.traced_ops(concrete.graph.as_graph_def())
    assert ops["Sin"] == 1 and ops["Less"] == 1  # (inside the body and cond functions)
