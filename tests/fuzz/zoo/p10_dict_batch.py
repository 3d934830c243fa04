"""Dict-of-tensors batches, tf.nest over the batch and the returned metrics dict."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 14


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w_num = tf.Variable(tf.random.normal([3, 1], seed=9))
        self.emb = tf.Variable(tf.random.normal([5, 1], seed=10))

    def __call__(self, batch):
        return tf.matmul(batch["num"], self.w_num)[:, 0] + tf.gather(self.emb, batch["cat"])[:, 0]


class State:
    def __init__(self):
        self.model = Model()
        self.totals = {"loss": 0.0, "n": 0}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 4 + i % 3
    batch = {"num": tf.constant(rng.randn(n, 3), tf.float32),
             "cat": tf.constant(rng.randint(0, 5, n)),
             "label": tf.constant(rng.randn(n), tf.float32)}
    return (batch,)


@JIT
def step(s, batch):
    batch = tf.nest.map_structure(lambda t: tf.identity(t), batch)
    label = batch.pop("label")
    with tf.GradientTape() as tape:
        pred = s.model(batch)
        loss = tf.reduce_mean((pred - label) ** 2)
    grads = tape.gradient(loss, s.model.trainable_variables)
    for v, g in zip(s.model.trainable_variables, grads):
        if isinstance(g, tf.IndexedSlices):
            g = tf.convert_to_tensor(g)
        v.assign_sub(0.05 * g)
    s.totals["loss"] += float(loss)
    s.totals["n"] += int(label.shape[0])
    metrics = {"loss": loss, "mae": tf.reduce_mean(tf.abs(pred - label))}
    flat = tf.nest.flatten(metrics)
    return tf.nest.pack_sequence_as(metrics, [tf.round(t * 1000) / 1000 for t in flat])


STEP = step
