"""A training step that pulls its own batches: a `tf.data` pipeline built in setup
(`from_tensor_slices` -> `map` -> `batch` -> `repeat`) with its iterator held on the state
(`next(s.it)` inside the step, sometimes twice when `accum` is 2), a second, finite
iterator of "hard examples" read with `next(s.hard, None)` until it runs out; an
augmentation done in numpy through `tf.numpy_function` (seeded numpy jitter) and a
label-smoothing helper through `tf.py_function` that also appends to a Python list on
the state (a side effect TF runs when the op runs); the learning rate a Python float
argument; the batch's element spec checked with `isinstance`; the number of examples
seen kept as a Python int.

janus (this session): agrees on all 16 calls; no whole-function graph (`next(s.it)` on
a tf.data iterator and `tf.numpy_function`/`tf.py_function` are graph breaks), runs
split with 3 graph segments; steady state about even with eager."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
FEAT = 5


def make_data(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, FEAT).astype(np.float32)
    y = (x @ np.arange(1, FEAT + 1, dtype=np.float32) > 0).astype(np.int32)
    return x, y


class State:
    def __init__(self):
        x, y = make_data(60, 85)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).map(
            lambda a, b: (a * 2.0, b)).batch(6).repeat()
        self.it = iter(ds)
        hx, hy = make_data(10, 850)
        self.hard = iter(tf.data.Dataset.from_tensor_slices((hx, hy)).batch(4))
        rng = np.random.RandomState(851)
        self.w = tf.Variable(rng.randn(FEAT, 2).astype(np.float32) * 0.1)
        self.b = tf.Variable(tf.zeros([2]))
        self.seen = 0
        self.py_calls = []
        self.rng = np.random.RandomState(852)


def setup():
    return State()


def inputs(i):
    return 0.1 if i < 8 else 0.05, 2 if i % 5 == 4 else 1, i % 3 == 0


def jitter(x, rng):
    return (x + 0.01 * rng.randn(*x.shape)).astype(np.float32)


@JIT
def train_step(s, lr, accum, use_hard):
    batches = [next(s.it) for _ in range(accum)]
    if use_hard:
        extra = next(s.hard, None)
        if extra is not None:
            batches.append(extra)
    total = 0.0
    for x, y in batches:
        assert isinstance(x, tf.Tensor) and x.dtype == tf.float32
        x = tf.numpy_function(lambda a: jitter(a, s.rng), [x], tf.float32)
        x.set_shape([None, FEAT])

        def smooth(labels):
            s.py_calls.append(int(tf.size(labels)))
            return tf.one_hot(labels, 2) * 0.9 + 0.05

        target = tf.py_function(smooth, [y], tf.float32)
        with tf.GradientTape() as tape:
            logits = x @ s.w + s.b
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(target, logits))
        gw, gb = tape.gradient(loss, [s.w, s.b])
        s.w.assign_sub(lr * gw / len(batches))
        s.b.assign_sub(lr * gb / len(batches))
        s.seen += int(x.shape[0]) if x.shape[0] is not None else 0
        total += loss
    return total / len(batches), len(batches)


STEP = train_step
