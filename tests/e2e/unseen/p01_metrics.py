"""A custom training loop with Keras metrics: update_state/result, reset every 4 steps,
a formatted log line every 2 steps."""
import keras
import tensorflow as tf

from tests.e2e.unseen import data

GRAPHS = True
MIN_GRAPH_CALLS = 14  # (of 24: 16 since F455's fix, which traces the periodic tests'
# outcomes for the call being served; before, 2: the function ended up split)


class State:
    def __init__(self):
        keras.utils.set_random_seed(1)
        self.model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                                       keras.layers.Dense(3)])
        self.opt = keras.optimizers.Adam(1e-2)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.train_loss = keras.metrics.Mean(name="train_loss")
        self.train_acc = keras.metrics.SparseCategoricalAccuracy(name="train_acc")
        self.step_count = 0
        self.history = []


def make_state():
    return State()


def step(s, x, y):
    with tf.GradientTape() as tape:
        logits = s.model(x, training=True)
        loss = s.loss_fn(y, logits)
    grads = tape.gradient(loss, s.model.trainable_variables)
    s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
    s.train_loss.update_state(loss)
    s.train_acc.update_state(y, logits)
    s.step_count += 1
    if s.step_count % 2 == 0:
        print(f"step {s.step_count}: loss={s.train_loss.result():.4f} "
              f"acc={s.train_acc.result() * 100:.1f}%")
    if s.step_count % 4 == 0:
        s.history.append(float(s.train_loss.result()))
        s.train_loss.reset_state()
        s.train_acc.reset_state()
    return loss


def calls():
    return data.classification(24)
