"""A function the converted code makes (a lambda, a nested def) handed to TensorFlow code
that runs AutoGraph on it (`ds.map`, `tf.function`, `tf.map_fn`) while the call runs with
plain semantics (profiling, a refused call run mixed): AutoGraph converts the user's own
function, as in plain Python (F248: janus's copy ran as it was, its errors without TF's
"in user code:" text; a tensor `if` in it raised instead of becoming a `tf.cond`)."""
import tensorflow as tf

from tests.differential import assert_same

DS = tf.data.Dataset.from_tensor_slices(tf.range(4, dtype=tf.float32)).batch(2)


def _refused_then_mapped(x, acc):
    f = float(tf.reduce_sum(x).numpy())  # (a refusal: the call runs mixed)
    acc = acc + DS.map(lambda b: b * tf.reduce_mean(acc)).reduce(
        0.0, lambda a, b: a + tf.reduce_sum(b))
    return f, acc


def test_an_error_inside_a_mapped_lambda_reads_as_autograph_s():
    calls = [(tf.constant([1.0 * i]), tf.constant(1.0) if i < 4 else
              tf.constant(1.0, tf.float64)) for i in range(7)]
    assert_same(_refused_then_mapped, calls)


def _tensor_if_in_mapped_def(x, k):
    def f(b):
        if tf.reduce_sum(b) > k:
            return b * 2.0
        return b
    return x + DS.map(f).reduce(0.0, lambda a, b: a + tf.reduce_sum(b))


def _tensor_tests_in_tf_functions(x, k):
    g = tf.function(lambda b: b * k if k > 0 else b)

    def h(b):
        while tf.reduce_sum(b) < 10.0:
            b = b + 1.0
        return b
    kept = DS.filter(lambda b: tf.reduce_sum(b) > k)
    return g(x) + tf.function(h)(x) + kept.reduce(0.0, lambda a, b: a + tf.reduce_sum(b))


SCALES = {0.5: 2.0}


def _error_in_map_fn(x):
    s = float(tf.reduce_sum(x).numpy())
    mapped = tf.map_fn(lambda b: b * SCALES[s], x)
    return mapped + tf.vectorized_map(lambda c: c + SCALES[s], x)


def test_tensor_tests_in_functions_autograph_converts():
    calls = [(tf.constant([1.0 * i]), 1.0 * (i % 3)) for i in range(6)]
    assert_same(_tensor_if_in_mapped_def, calls)
    assert_same(_tensor_tests_in_tf_functions, calls)
    assert_same(_error_in_map_fn, [(tf.constant([0.5 + (i % 3 == 2), 0.0]),) for i in range(6)])


def _mapped_in_graph(x, acc):
    return acc + DS.map(lambda b: b * tf.reduce_mean(acc)).reduce(
        0.0, lambda a, b: a + tf.reduce_sum(b)) + x


def test_a_mapped_lambda_still_runs_in_graphs():
    stats = assert_same(_mapped_in_graph, [(tf.constant([1.0 * i]), tf.constant(2.0))
                                           for i in range(6)])
    assert stats.graph_calls >= 3
