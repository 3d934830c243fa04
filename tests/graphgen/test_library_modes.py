"""Library code janus runs as it is, asking the execution mode inside a traced call
(graphgen/library_modes.py, F342): answered as plain Python's eager call is, compared
with plain Python call by call."""
import keras
import tensorflow as tf
from keras.src.utils import backend_utils

from tests.differential import Call, assert_same

CALLS = [(tf.constant([1.0, float(i)]),) for i in range(6)]


def test_keras_max_of_an_empty_selection_raises_as_eagerly():
    def step(x, threshold):
        chosen = tf.boolean_mask(x, x > threshold)
        return keras.ops.max(chosen), keras.ops.min(chosen), tf.reduce_sum(x) * 2.0

    x = tf.constant([1.0, 2.0, 3.0])
    calls = [(x, tf.constant(5.0 if i in (5, 7) else 0.5 + i % 2)) for i in range(9)]
    stats = assert_same(step, calls)
    assert stats.graph_calls >= 4


def test_vocabulary_size_is_a_python_int():
    lookup = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
    vectorize = keras.layers.TextVectorization()
    vectorize.adapt(["a b c d"])

    def step(x):
        n = lookup.vocabulary_size()
        m = vectorize.vocabulary_size()
        return tf.reduce_sum(x) * 2.0, n, m, type(n).__name__, n + 1

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3  # (F354: the table's size read on the host, checked)


def test_vocabulary_size_keeps_its_graph_and_follows_a_new_vocabulary():
    class State:
        def __init__(self):
            self.lookup = keras.layers.StringLookup(vocabulary=["a", "b", "c"])
            self.w = tf.Variable(tf.ones((6, 1)))

    def step(s, tokens):
        depth = s.lookup.vocabulary_size()
        hot = tf.one_hot(s.lookup(tokens), depth)
        return tf.reduce_sum(tf.matmul(hot, s.w[:depth])), depth, depth * 2

    def grown(s):  # (the vocabulary changes between calls: the graph's check fails)
        s.lookup.set_vocabulary(["a", "b", "c", "d", "e"])
        return s, tf.constant(["a", "e", "z"])

    tokens = tf.constant(["a", "z", "b"])
    calls = [(tokens,)] * 7 + [grown] + [(tf.constant(["d", "e"]),)] * 7
    stats = assert_same(step, calls, State)
    assert stats.graph_calls >= 6


def test_a_librarys_numpy_of_the_calls_data_takes_its_graph_path():
    def step(x, n):
        return keras.ops.tile(x, [n * 1, tf.size(x) // 2]), keras.ops.tile(x, [tf.constant(2), 1])

    x = tf.constant([[1.0, 2.0]])
    stats = assert_same(step, [(x, tf.constant(1 + i % 2)) for i in range(8)])
    assert stats.graph_calls >= 4


def test_vocabulary_size_as_a_one_hot_depth_with_a_periodic_print():
    lookup = keras.layers.StringLookup(vocabulary=["a", "b", "c"])

    class State:
        def __init__(self):
            self.step = 0
            self.w = tf.Variable(tf.ones((4, 1)))

    def step(s, tokens):
        s.step += 1
        depth = lookup.vocabulary_size()
        if s.step % 5 == 0:
            print("vocab", depth)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(tf.one_hot(lookup(tokens), depth), s.w))
        return tape.gradient(loss, s.w)

    assert_same(step, [(tf.constant(["a", "z", "b"]),)] * 12, State)


def test_a_library_helper_branching_on_the_mode_keeps_its_graph():
    def step(x):
        scale = 3.0 if backend_utils.in_tf_graph() else 2.0
        return x * scale + (1.0 if tf.inside_function() else 0.0)

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3


def test_in_a_loop_body_the_library_is_eager_and_in_a_tf_function_not():
    def step(x):
        mapped = tf.map_fn(lambda t: t * (3.0 if backend_utils.in_tf_graph() else 2.0), x)
        vectorized = tf.vectorized_map(
            lambda t: t * (5.0 if backend_utils.in_tf_graph() else 7.0), x)
        return mapped, vectorized

    stats = assert_same(step, CALLS)
    assert stats.graph_calls >= 3


def test_the_programs_own_question_inside_a_layer_call():
    class Scale(keras.layers.Layer):
        def call(self, x):
            return x * (2.0 if tf.executing_eagerly() else 3.0) + \
                (1.0 if backend_utils.in_tf_graph() else 0.0)

    layer = Scale()

    def step(x):
        return layer(x)

    assert_same(step, [Call(x) for (x,) in CALLS])


def test_keras_crossentropy_of_a_softmax_output_is_computed_as_eagerly():
    """(F343) Keras takes a graph Softmax's logits (not EagerTensor): eagerly it clips."""
    w = tf.Variable([[0.5, 2.0, -1.0]])

    def step(z, labels, onehot):
        with tf.GradientTape() as tape:
            logits = z * w
            p = tf.nn.softmax(logits)
            losses = (keras.losses.categorical_crossentropy(onehot, p),
                      keras.losses.sparse_categorical_crossentropy(labels, p),
                      keras.losses.CategoricalCrossentropy()(onehot, p),
                      keras.ops.binary_crossentropy(onehot, tf.sigmoid(logits)))
            total = tf.add_n([tf.reduce_sum(loss) for loss in losses])
        return losses, tape.gradient(total, w)

    onehot = tf.constant([[1.0, 0.0, 0.0]])
    calls = [(tf.constant([[1.0, 12.0 + i, 1.0]]), tf.constant([0]), onehot) for i in range(6)]
    stats = assert_same(step, calls)
    assert stats.graph_calls >= 3


def test_the_programs_own_numpy_of_a_graph_tensor_is_its_refusal_not_janus_error(monkeypatch):
    """`int(optimizer.iterations)` in the step: TF's AttributeError for `.numpy` of a graph
    tensor passes through F354's stand-in `__getattr__`; it is the trace's refusal (the
    call runs plainly), never counted as janus's own error (zoo p16, p20, p71)."""
    import janus
    monkeypatch.setattr(janus.config, "raise_internal_errors", True)

    class State:
        def __init__(self):
            self.v = tf.Variable(0, dtype=tf.int64)
            self.seen = []

    def step(s, x):
        s.v.assign_add(1)
        it = int(s.v)
        if it % 2:
            s.seen.append(it)
        return tf.reduce_sum(x) * it

    stats = assert_same(step, CALLS, State)
    assert stats.internal_errors == 0
