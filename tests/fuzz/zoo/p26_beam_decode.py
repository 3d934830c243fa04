"""Greedy decoding at inference time: a Python while loop that stops at an end token
(read on the host with `int()`) or a maximum length, tokens gathered in a Python list."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14
EOS, VOCAB = 0, 5


class State:
    def __init__(self):
        self.emb = tf.Variable(tf.random.normal([VOCAB, 4], seed=14))
        self.w = tf.Variable(tf.random.normal([4, 4], seed=15))
        self.out = tf.Variable(tf.random.normal([4, VOCAB], seed=16))
        self.lengths = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    return (tf.constant(rng.randn(1, 4), tf.float32), 3 + i % 4)


@JIT
def decode(s, h, max_len):
    tokens = []
    token = tf.constant([1])
    while len(tokens) < max_len:
        h = tf.tanh(tf.matmul(h, s.w) + tf.gather(s.emb, token))
        token = tf.argmax(tf.matmul(h, s.out), axis=-1, output_type=tf.int32)
        if int(token[0]) == EOS:
            break
        tokens.append(token[0])
    s.lengths.append(len(tokens))
    return tokens


STEP = decode
