"""An evaluation step accumulating a confusion matrix in a tf.Variable (assign_add of
tf.math.confusion_matrix), per-class recall read back as a numpy array every 3rd call,
the top-2 accuracy from tf.math.in_top_k, under `with tf.device("/CPU:0")`."""
import keras
import numpy as np
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True  # (F461: `s.top2_hits += int(...)` stays in the graph; the recall every
# 3rd call reads `.numpy()` and numpy: that branch is a break)
MIN_GRAPH_CALLS = 2


class State:
    def __init__(self):
        keras.utils.set_random_seed(28)
        self.model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
        self.cm = tf.Variable(tf.zeros([3, 3], tf.int32))
        self.top2_hits = 0
        self.seen = 0
        self.recalls = []


def make_state():
    return State()


def step(s, x, y):
    with tf.device("/CPU:0"):
        logits = s.model(x, training=False)
        preds = tf.argmax(logits, axis=1)
        s.cm.assign_add(tf.math.confusion_matrix(y, preds, num_classes=3, dtype=tf.int32))
        top2 = tf.math.in_top_k(tf.cast(y, tf.int32), logits, k=2)
    s.top2_hits += int(tf.reduce_sum(tf.cast(top2, tf.int32)))
    s.seen += int(x.shape[0])
    if s.seen % 24 == 0:
        cm = s.cm.numpy()
        s.recalls.append(np.diag(cm) / np.maximum(cm.sum(axis=1), 1))
    return s.top2_hits / s.seen


def calls():
    return data.classification(9, seed=40)
