"""The tensor work of a host-read statement moves out of it (janus/transform/host_reads.py):
what is moved, in which order, and what is left as it is. End to end (janus vs plain
Python): tests/fallback/test_segments_host_reads.py."""
import ast
import textwrap

import gast

from janus.transform import host_reads


def _hoisted(source: str, env: dict | None = None, lines=None) -> list[str]:
    fn = gast.parse(textwrap.dedent(source)).body[0]
    lines = set(range(1, 100)) if lines is None else lines
    out = host_reads.hoist(fn, lines, env or {})
    return [ast.unparse(gast.gast_to_ast(s)) for s in out.body]


def test_reads_of_model_outputs_move_out_and_up_together():
    assert _hoisted("""
        def step(state, obs, a):
            old = log_probs(state.policy(obs), a).numpy()
            values = state.value(obs).numpy()[:, 0]
            total = float(tf.reduce_sum(values))
            return old
        """) == [
        "janus_read_0 = log_probs(state.policy(obs), a)",
        "janus_read_1 = state.value(obs)",
        "old = janus_read_0.numpy()",
        "values = janus_read_1.numpy()[:, 0]",
        "janus_read_2 = tf.reduce_sum(values)",   # (reads `values`: below its read)
        "total = float(janus_read_2)",
        "return old"]


def test_a_moved_out_statement_stays_below_the_read_it_depends_on():
    assert _hoisted("""
        def f(m, x):
            a = m(x).numpy()
            b = m(a * 2).numpy()
        """) == ["janus_read_0 = m(x)", "a = janus_read_0.numpy()",
                 "janus_read_1 = m(a * 2)", "b = janus_read_1.numpy()"]


def test_nothing_moves_ahead_of_a_call_python_makes_first():
    source = """
        def f(x, y):
            a = g(x) + h(y).numpy()
            b = x.numpy()
            c = (x > 0 and h(y).numpy())
        """
    assert _hoisted(source) == ["a = g(x) + h(y).numpy()", "b = x.numpy()",
                                "c = x > 0 and h(y).numpy()"]


def test_several_reads_of_one_statement_keep_their_order():
    assert _hoisted("""
        def f(env, m, h, x):
            env.step(m(x).numpy(), p=h(x).numpy())
        """) == ["janus_read_0 = m(x)", "janus_read_1 = h(x)",
                 "env.step(janus_read_0.numpy(), p=janus_read_1.numpy())"]


def test_try_bodies_other_withs_and_shadowed_conversions_are_left_alone():
    source = """
        def f(m, x, lock):
            try:
                a = m(x).numpy()
            except ValueError:
                a = None
            with lock:
                b = m(x).numpy()
            with tf.GradientTape() as tape:
                c = float(tf.reduce_sum(m(x)))
            return a
        """
    out = _hoisted(source)
    assert out[0].startswith("try:") and "janus_read" not in out[0]
    assert out[1].startswith("with lock:") and "janus_read" not in out[1]
    assert "janus_read_0 = tf.reduce_sum(m(x))" in out[2]
    assert all("janus_read" not in s for s in _hoisted(source, env={"float": int})[2:3])


def test_only_the_given_lines_and_fresh_names():
    source = """
        def f(m, x, janus_read_0):
            a = m(x).numpy()
            b = m(x).numpy()
        """
    assert _hoisted(source, lines={4}) == [
        "a = m(x).numpy()", "janus_read_1 = m(x)", "b = janus_read_1.numpy()"]


def test_moved_out_statements_are_marked_and_keep_the_line():
    fn = gast.parse(textwrap.dedent("""
        def f(m, x):
            y = 1
            a = int(tf.argmax(m(x)))
        """)).body[0]
    out = host_reads.hoist(fn, {4}, {})
    moved = out.body[1]
    assert moved.janus_hoisted and moved.lineno == 4
    assert not getattr(out.body[2], "janus_hoisted", False)
    assert not hasattr(fn.body[1], "janus_hoisted")  # the original is not modified


def test_host_work_and_reads_of_reads_stay_in_their_break():
    import numpy
    source = """
        def f(y, xs, t):
            a = float(y.numpy())
            b = float(np.sum(t))
            c = int(len(xs))
            d = float(tf.reduce_sum(t))
        """
    assert _hoisted(source, env={"np": numpy, "tf": object()}) == [
        "a = float(y.numpy())", "b = float(np.sum(t))", "c = int(len(xs))",
        "janus_read_0 = tf.reduce_sum(t)", "d = float(janus_read_0)"]
