"""SimCLR-style contrastive (NT-Xent) loss: two augmented views through an encoder and a
projection head, `tf.math.l2_normalize`, in-batch negatives with the self-similarity
masked out, a temperature Python float annealed every call, and the accuracy of the
positive pair computed with numpy on the similarity matrix."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 18
LARGE_NUM = 1e9


class State:
    def __init__(self):
        self.encoder = keras.Sequential([keras.layers.Dense(12, activation="relu"),
                                         keras.layers.Dense(8)])
        self.head = keras.Sequential([keras.layers.Dense(8, activation="relu"),
                                      keras.layers.Dense(4)])
        self.opt = keras.optimizers.SGD(0.05, momentum=0.9)
        self.temperature = 0.5
        self.log = {"loss": [], "acc": [], "tau": []}


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(6, 5).astype(np.float32)
    noise1 = 0.1 * rng.randn(6, 5).astype(np.float32)
    noise2 = 0.1 * rng.randn(6, 5).astype(np.float32)
    return (tf.constant(x + noise1), tf.constant(x * 0.9 + noise2))


def nt_xent(z1, z2, temperature):
    z1 = tf.math.l2_normalize(z1, axis=1)
    z2 = tf.math.l2_normalize(z2, axis=1)
    batch_size = tf.shape(z1)[0]
    labels = tf.one_hot(tf.range(batch_size), batch_size * 2)
    masks = tf.one_hot(tf.range(batch_size), batch_size)
    logits_aa = tf.matmul(z1, z1, transpose_b=True) / temperature
    logits_aa = logits_aa - masks * LARGE_NUM
    logits_bb = tf.matmul(z2, z2, transpose_b=True) / temperature
    logits_bb = logits_bb - masks * LARGE_NUM
    logits_ab = tf.matmul(z1, z2, transpose_b=True) / temperature
    logits_ba = tf.matmul(z2, z1, transpose_b=True) / temperature
    loss_a = tf.nn.softmax_cross_entropy_with_logits(
        labels, tf.concat([logits_ab, logits_aa], 1))
    loss_b = tf.nn.softmax_cross_entropy_with_logits(
        labels, tf.concat([logits_ba, logits_bb], 1))
    return tf.reduce_mean(loss_a + loss_b), logits_ab


@JIT
def train_step(s, x1, x2):
    with tf.GradientTape() as tape:
        z1 = s.head(s.encoder(x1, training=True), training=True)
        z2 = s.head(s.encoder(x2, training=True), training=True)
        loss, logits_ab = nt_xent(z1, z2, s.temperature)
    variables = s.encoder.trainable_variables + s.head.trainable_variables
    grads = tape.gradient(loss, variables)
    s.opt.apply_gradients(zip(grads, variables))
    sim = logits_ab.numpy()
    acc = float(np.mean(np.argmax(sim, axis=1) == np.arange(sim.shape[0])))
    s.log["loss"].append(round(float(loss), 5))
    s.log["acc"].append(acc)
    s.log["tau"].append(s.temperature)
    s.temperature = max(0.1, s.temperature * 0.85)
    return loss, acc


STEP = train_step
