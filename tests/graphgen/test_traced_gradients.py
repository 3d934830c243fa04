"""Class: a gradient a trace computes must be the one Python's tape gives, including its
kind: rows gathered inside a loop (an embedding lookup per item or time step) are
IndexedSlices eagerly, a row per lookup, but one dense tensor through TF's while-loop
gradient. Adam and RMSprop square each row before rows of a repeated id are summed, so
the weights after a step differed from the third call on (found while making `range`
loops general, graphgen/dynamic_sizes.py). Now such a gradient refuses the general
trace and the loop stays unrolled (graphgen/traced_gradients.py)."""
import keras
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class Model:
    def __init__(self, optimizer):
        keras.utils.set_random_seed(0)
        self.emb = keras.layers.Embedding(7, 3)
        self.emb.build((None,))
        self.opt = optimizer


def lookups_in_a_list_loop(s, tokens):
    with tf.GradientTape() as tape:
        loss = 0.0
        for tok in tokens:
            loss += tf.reduce_sum(s.emb(tok) ** 2)
    grads = tape.gradient(loss, s.emb.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.emb.trainable_variables))
    return loss


def lookups_in_a_range_loop(s, ids, n):
    with tf.GradientTape() as tape:
        loss = 0.0
        for t in range(n):
            loss += tf.reduce_sum(tf.gather(s.emb.embeddings, ids[t]) ** 2)
    grads = tape.gradient(loss, s.emb.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.emb.trainable_variables))
    return loss


def _tokens(i):
    rng = np.random.RandomState(i)
    return [tf.constant(int(t)) for t in rng.randint(0, 7, 2 + i % 5)]


def test_adam_on_an_embedding_looked_up_in_a_loop_over_a_list_of_varying_length():
    calls = [(_tokens(i),) for i in range(12)]
    stats = assert_same(lookups_in_a_list_loop, calls,
                        make_state=lambda: Model(keras.optimizers.Adam(0.1)))
    assert stats.graph_calls >= 6  # (unrolled: a graph per length)


def test_rmsprop_on_rows_gathered_in_a_loop_over_a_fed_count():
    ids = tf.constant([1, 2, 1, 4, 1, 2, 6])
    calls = [(ids, 2 + i % 5) for i in range(12)]
    stats = assert_same(lookups_in_a_range_loop, calls,
                        make_state=lambda: Model(keras.optimizers.RMSprop(0.1)))
    assert stats.graph_calls >= 6


def lookups_after_an_update(s, tokens):
    """Fuzz v58 seed 2100013: the variable updated first, so the loop gathers from
    janus's local copy of it (read through an IdentityN, fallback/variables.py)."""
    s.emb.embeddings.assign_sub(tf.ones([7, 3]) * 0.01)
    with tf.GradientTape() as tape:
        loss = 0.0
        for tok in tokens:
            loss += tf.reduce_sum(tf.gather(s.emb.embeddings, tok) ** 2)
    grads = tape.gradient(loss, s.emb.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.emb.trainable_variables))
    return loss, isinstance(grads[0], tf.IndexedSlices)


def test_rows_gathered_in_a_loop_from_a_variable_updated_before_it():
    calls = [(_tokens(i),) for i in range(10)]
    stats = assert_same(lookups_after_an_update, calls,
                        make_state=lambda: Model(keras.optimizers.Adam(0.1)))
    assert stats.graph_calls >= 5


def encode_decode(s, src, tgt):
    """Two loops over sizes of two arguments that vary apart (zoo p06's seq2seq)."""
    with tf.GradientTape() as tape:
        loss = 0.0
        for t in range(src.shape[1]):
            loss += tf.reduce_sum(s.emb(src[:, t]) ** 2)
        for t in range(tgt.shape[1]):
            loss += tf.reduce_sum(s.emb(tgt[:, t]) * 0.5)
    grads = tape.gradient(loss, s.emb.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.emb.trainable_variables))
    return loss


def test_each_size_s_general_graph_failing_alike_keeps_graphs_per_size():
    """Each size's general graph failed alike (`gradient` of rows a loop gathers), and at
    `max_generation_failures` janus gave up on the function: slower than eager (zoo p06).
    It now stops generalizing and keeps a graph per pair of sizes."""
    import janus

    def make_calls():
        rng = np.random.RandomState(0)
        return [(tf.constant(rng.randint(0, 7, (2, 3 + i % 2))),
                 tf.constant(rng.randint(0, 7, (2, 2 + (i // 4) % 3)))) for i in range(24)]

    jitted = janus.jit(encode_decode, max_generation_failures=2)  # (two fail here)
    stats = assert_same(encode_decode, make_calls(), jitted=jitted,
                        make_state=lambda: Model(keras.optimizers.RMSprop(0.1)))
    assert jitted.unsupported is None and not jitted.generalizing, janus.explain(jitted)
    assert stats.graph_calls >= 10, stats


class Weights:
    def __init__(self):
        self.w = tf.Variable([[0.5, 0.0], [0.0, 0.5]])


def read_after_the_exit_test(s, x):
    with tf.GradientTape() as tape:
        y = x
        for _ in range(3):
            if tf.reduce_max(tf.abs(y)) < 1e-3:
                break
            y = y @ s.w                  # read only after the test: none where it stops at once
        loss = tf.reduce_sum(y)
    grads = tape.gradient(loss, [s.w])
    for g, v in zip(grads, [s.w]):
        v.assign_sub(0.01 * g)           # TypeError in Python where the gradient is None
    return loss


def test_a_variable_read_after_a_loop_s_first_exit_test_has_python_s_none_gradient():
    """F181 (zoo p83): the loop as one tf.while_loop runs its first iteration's rest after
    the exit test whether or not it stopped there, so TF's gradient was zeros where
    Python's tape has None (a zero update applied, where Python raises); now the graph
    checks the loop went on past that test (graphgen/connectivity.speculative)."""
    scales = [1.0, 1.0, 1e-6, 1.0, 1.0, 1.0, 1e-6, 1.0, 1.0]
    stats = assert_same(read_after_the_exit_test,
                         [(tf.constant([[1.0, 2.0]]) * s,) for s in scales], Weights)
    assert stats.graph_calls > 0
