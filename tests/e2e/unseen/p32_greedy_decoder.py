"""A greedy decoder: a Python `while` whose condition is a tensor (not every sequence
ended, under a max length), the tokens kept in a Python list and stacked at the end."""
import numpy as np
import tensorflow as tf

GRAPHS = True
MIN_GRAPH_CALLS = 3

EOS = 0


class State:
    def __init__(self):
        rng = np.random.RandomState(34)
        self.emb = tf.Variable(rng.randn(5, 4).astype(np.float32))
        self.w = tf.Variable(rng.randn(4, 4).astype(np.float32) * 0.5)
        self.out = tf.Variable(rng.randn(4, 5).astype(np.float32))
        self.max_len = 6
        self.decoded = 0


def make_state():
    return State()


def step(s, h0):
    h = h0
    tok = tf.fill([h0.shape[0]], 1)
    done = tf.zeros([h0.shape[0]], tf.bool)
    tokens = []
    t = 0
    while not tf.reduce_all(done) and t < s.max_len:
        h = tf.tanh(h @ s.w + tf.gather(s.emb, tok))
        tok = tf.argmax(h @ s.out, axis=-1, output_type=tf.int32)
        tok = tf.where(done, EOS, tok)
        tokens.append(tok)
        done = done | tf.equal(tok, EOS)
        t += 1
    s.decoded += 1
    return tf.stack(tokens, axis=1), t


def calls():
    rng = np.random.RandomState(35)
    return [(tf.constant(rng.randn(3, 4).astype(np.float32)),) for _ in range(8)]
