"""Class: the profiling run (and every converted callee) computes what plain Python
computes: a converted nested function sees its closure's *current* values (issue 9,
failure 3).

A converted callee used to get a snapshot of its closure cells' contents, taken when it
was first instantiated and cached: a nested `def` reading a value its enclosing function
rebinds (an embedding of the current minibatch, a hidden state) kept using the first
value. In an RNN LM epoch the tape then saw no path from the loss to the embedding:
`None` gradients while janus profiled (`None ** 2` in the clipping). Converted code now
closes over the original function's own cells.
"""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same

V, H, T, B = 7, 5, 3, 2


class LM:
    def __init__(self):
        rng = np.random.RandomState(0)
        self.emb = tf.Variable(rng.randn(V, H).astype(np.float32) * 0.3)
        self.W = tf.Variable(rng.randn(H, H).astype(np.float32) * 0.3)
        self.out = tf.Variable(rng.randn(H, V).astype(np.float32) * 0.3)
        self.params = [self.emb, self.W, self.out]
        self.tokens = np.random.RandomState(1).randint(0, V, (B, 13)).astype(np.int32)
        self.losses = []


def minibatches(tokens, steps):
    for i in range(0, tokens.shape[1] - steps, steps):
        yield tf.constant(tokens[:, i:i + steps]), tf.constant(tokens[:, i + 1:i + 1 + steps])


def epoch(model, clip, lr):
    total = 0.0
    h = tf.zeros([B, H])
    e = None

    def cell(state):
        return state @ model_w + e  # reads the *current* minibatch's embedding
    model_w = model.W
    for x, y in minibatches(model.tokens, T):
        with tf.GradientTape(persistent=True) as tape:
            loss = 0.0
            for t in range(T):
                e = tf.nn.embedding_lookup(model.emb, x[:, t])
                h = tf.tanh(cell(h))
                logits = h @ model.out
                loss += tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(y[:, t], logits))
        grads = [tf.convert_to_tensor(g) for g in tape.gradient(loss, model.params)]
        squares = 0.0
        for g in grads:
            squares += float((g ** 2).numpy().sum())
        scale = min(1.0, clip / (squares ** 0.5 + 1e-6))
        for p, g in zip(model.params, grads):
            p.assign_sub(lr * scale * g)
        h = tf.stop_gradient(h)
        total += float(loss.numpy())
        model.losses.append(total)
        del tape
    return total


def test_rnn_lm_epoch_with_a_closure_over_the_minibatch():
    assert_same(epoch, [(1.0, 0.5)] * 4 + [(0.1, 0.2)] * 2, make_state=LM)


def scaled_sum(xs, k):
    factor = 1.0

    def scale(v):
        return v * factor + k
    total = tf.zeros([2])
    for x in xs:
        factor = factor * 2.0
        total = total + scale(x)
    return total


def test_closure_rebound_in_a_loop_of_the_enclosing_function():
    calls = [([tf.ones([2]) * i for i in range(n)], 1.0) for n in (3, 3, 3, 3, 2, 4)]
    stats = assert_same(scaled_sum, calls)
    assert stats.graph_calls >= 2


def train_step(model, x, y):
    h = tf.zeros([B, H])
    e = None

    def cell(state):
        return tf.tanh(state @ model.W + e)
    with tf.GradientTape() as tape:
        loss = 0.0
        for t in range(T):
            e = tf.nn.embedding_lookup(model.emb, x[:, t])
            h = cell(h)
            loss += tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(y[:, t], h @ model.out))
    grads = tape.gradient(loss, model.params)
    for p, g in zip(model.params, grads):
        p.assign_sub(0.5 * tf.convert_to_tensor(g))
    return loss


def test_gradients_through_a_closure_in_the_graph():
    tokens = np.random.RandomState(2).randint(0, V, (B, T + 1)).astype(np.int32)
    x, y = tf.constant(tokens[:, :T]), tf.constant(tokens[:, 1:])
    stats = assert_same(train_step, [(x, y)] * 6, make_state=LM)
    assert stats.graph_calls >= 3
