"""A message-passing graph network trained on small graphs of different sizes per call:
edge lists as Python lists of (src, dst) tuples turned into tensors with tf.constant,
the node count passed as a Python int (num_segments of tf.math.unsorted_segment_sum), a
Python loop over message-passing rounds, a graph-level readout; the losses kept per
graph size in a dict of lists (`setdefault(n_nodes, []).append(loss)`)."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
HIDDEN = 8


class GNN(keras.Model):
    def __init__(self, rounds=3):
        super().__init__()
        self.rounds = rounds
        self.embed = keras.layers.Dense(HIDDEN)
        self.message = keras.layers.Dense(HIDDEN, activation="relu")
        self.update_fn = keras.layers.Dense(HIDDEN, activation="tanh")
        self.readout = keras.layers.Dense(1)

    def call(self, features, edges, n_nodes):
        src, dst = edges[:, 0], edges[:, 1]
        h = self.embed(features)
        for _ in range(self.rounds):
            msgs = self.message(tf.concat([tf.gather(h, src), tf.gather(h, dst)], axis=-1))
            agg = tf.math.unsorted_segment_sum(msgs, dst, num_segments=n_nodes)
            deg = tf.math.unsorted_segment_sum(tf.ones_like(dst, tf.float32), dst, n_nodes)
            agg = agg / tf.maximum(deg, 1.0)[:, None]
            h = self.update_fn(tf.concat([h, agg], axis=-1))
        return self.readout(tf.reduce_mean(h, axis=0, keepdims=True))[0, 0]


class State:
    def __init__(self):
        self.model = GNN()
        self.opt = keras.optimizers.Adam(0.02)
        self.loss_by_size = {}
        self.seen = 0


def setup():
    return State()


def make_graph(i):
    rng = np.random.RandomState(i)
    n = 3 + i % 4
    edge_list = [(k, k + 1) for k in range(n - 1)]  # a path
    edge_list += [(int(a), int(b)) for a, b in rng.randint(0, n, (i % 3 + 1, 2)) if a != b]
    edge_list += [(b, a) for a, b in edge_list]  # undirected
    return rng.randn(n, 3).astype(np.float32), edge_list, float(len(edge_list)) / n


def inputs(i):
    features, edge_list, density = make_graph(i)
    return (tf.constant(features), edge_list, features.shape[0], density)


@JIT
def train_step(s, features, edge_list, n_nodes, target):
    edges = tf.constant(edge_list, dtype=tf.int32)
    with tf.GradientTape() as tape:
        pred = s.model(features, edges, n_nodes=n_nodes)
        loss = tf.square(pred - target)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.loss_by_size.setdefault(n_nodes, []).append(loss)
    s.seen += len(edge_list)
    return pred, loss


STEP = train_step
