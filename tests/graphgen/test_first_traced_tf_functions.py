"""A program's `tf.function` that assigns a variable it is handed, traced by TF for the
first time inside janus's trace (a warm start skips profiling; `profile_calls=0`): its
cached graph must assign the variable itself, on janus's calls and on the program's own
later calls (F422: it assigned a copy of janus's trace, so the variable never moved,
even in plain runs). Compared with plain Python, guards failing in between."""
import tensorflow as tf

import janus


def _program():
    v = tf.Variable(0.0)

    @tf.function
    def bump(var, amount):
        var.assign_add(amount)
        return var * 2.0

    def step(x):
        acc = bump(v, tf.reduce_mean(x))
        if tf.reduce_mean(x) > 0.5:  # (an in-graph guard: fails for the small ones)
            acc = acc * 0.5
        return acc

    return v, bump, step


def test_a_tf_function_first_traced_in_janus_s_trace_assigns_the_variable():
    xs = [1.0, 2.0, 0.25, 3.0, 0.1, 2.0, 1.5]
    results = []
    for jitted in (False, True):
        v, bump, step = _program()
        run = janus.jit(step, profile_calls=0) if jitted else step
        seen = [(float(run(tf.constant([x]))), float(v.numpy())) for x in xs]
        seen.append((float(bump(v, tf.constant(1.0))), float(v.numpy())))  # (its own call)
        results.append(seen)
    assert results[1] == results[0]
