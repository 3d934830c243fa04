"""One entry point for training, evaluation and prediction dispatched with a `match`
statement on a Python mode string (`case "predict" | "infer":`, `case _: raise
ValueError`), batches destructured with mapping and sequence patterns (`case {"x": x,
"y": y, **rest}:`, `case (x, y):`, `case {"x": x}:`), `*args`/`**kwargs` forwarded
through helpers to the model and the loss, and, in evaluation, an early `return` from
inside two nested Python loops over the confusion matrix (the first confused class pair
above a threshold, found with a tensor test); a Python log of (mode, outcome) tuples and a
count of the early exits."""
import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 20
CLASSES = 3
MODES = ["train", "train", "eval", "train", "predict", "train", "infer", "eval", "train",
         "test", "train", "eval", "train", "train", "predict", "eval", "train", "eval",
         "train", "eval"]


def forward(model, *args, **kwargs):
    return model(*args, **kwargs)


def loss_of(logits, y, *, weights=None, **unused):
    per = keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
    if weights is not None:
        per = per * weights
    return tf.reduce_mean(per)


class State:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(12, activation="relu"),
                                       keras.layers.Dropout(0.2, seed=3),
                                       keras.layers.Dense(CLASSES)])
        self.opt = keras.optimizers.Adam(0.05)
        self.log = []
        self.early = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    x = rng.randn(8, 4).astype(np.float32)
    y = (np.argmax(x[:, :CLASSES], axis=1)).astype(np.int32)
    x, y = tf.constant(x), tf.constant(y)
    mode = MODES[i]
    if i % 4 == 1:
        batch = (x, y)
    elif mode in ("predict", "infer"):
        batch = {"x": x}
    elif i % 4 == 3:
        batch = {"x": x, "y": y, "w": tf.constant(rng.rand(8).astype(np.float32))}
    else:
        batch = {"x": x, "y": y}
    return mode, batch, 0.3 + 0.05 * (i % 3)


def confused_pair(logits, y, threshold):
    pred = tf.argmax(logits, axis=-1, output_type=tf.int32)
    conf = tf.math.confusion_matrix(y, pred, num_classes=CLASSES, dtype=tf.float32)
    conf = conf / tf.maximum(tf.reduce_sum(conf, axis=1, keepdims=True), 1.0)
    for i in range(CLASSES):
        for j in range(CLASSES):
            if i != j and conf[i, j] > threshold:
                return (i, j), conf[i, j]
    return None, tf.reduce_max(conf - tf.linalg.diag(tf.linalg.diag_part(conf)))


@JIT
def run(s, mode, batch, threshold, **opts):
    match batch:
        case {"x": x, "y": y, **rest}:
            weights = rest.get("w")
        case (x, y):
            weights = None
        case {"x": x}:
            y = weights = None
        case _:
            raise TypeError(f"unsupported batch {type(batch).__name__}")
    match mode:
        case "train":
            with tf.GradientTape() as tape:
                logits = forward(s.model, x, training=True)
                loss = loss_of(logits, y, weights=weights, **opts)
            variables = s.model.trainable_variables
            s.opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
            s.log.append((mode, "step"))
            return loss
        case "eval":
            logits = forward(s.model, x, training=False)
            pair, worst = confused_pair(logits, y, threshold)
            if pair is not None:
                s.early += 1
            s.log.append((mode, pair))
            return worst, loss_of(logits, y)
        case "predict" | "infer":
            probs = tf.nn.softmax(forward(s.model, x, training=False))
            s.log.append((mode, probs.shape[0]))
            return tf.argmax(probs, axis=-1), probs
        case _:
            s.log.append((mode, "unknown"))
            raise ValueError(f"unknown mode {mode!r}")


STEP = run
