"""A keras.Model subclass with BatchNormalization and Dropout, `training=` passed through;
a train step and an eval step alternate on one jitted function (a `mode` string)."""
import keras
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 8  # (0 before F456: `s.eval_losses.append(loss.numpy())` was a break)


class Net(keras.Model):
    def __init__(self):
        super().__init__(name="net")
        self.d1 = keras.layers.Dense(12)
        self.bn = keras.layers.BatchNormalization()
        self.drop = keras.layers.Dropout(0.3)
        self.d2 = keras.layers.Dense(3)

    def call(self, x, training=False):
        h = tf.nn.relu(self.bn(self.d1(x), training=training))
        return self.d2(self.drop(h, training=training))


class State:
    def __init__(self):
        keras.utils.set_random_seed(8)
        self.net = Net()
        self.opt = keras.optimizers.SGD(0.05, momentum=0.9)
        self.eval_losses = []


def make_state():
    return State()


def step(s, x, y, mode):
    if mode == "train":
        with tf.GradientTape() as tape:
            logits = s.net(x, training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, s.net.trainable_variables)
        s.opt.apply_gradients(zip(grads, s.net.trainable_variables))
        return loss
    logits = s.net(x)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    s.eval_losses.append(loss.numpy())
    return loss


def calls():
    batches = data.classification(12, seed=9)
    return [(x, y, "eval" if i % 3 == 2 else "train") for i, (x, y) in enumerate(batches)]
