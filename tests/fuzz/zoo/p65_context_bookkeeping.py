"""Bookkeeping wrapped around parts of a training step the way researchers add it: a
`@contextlib.contextmanager` "phase" timer-like helper that pushes the phase name on a
Python stack, counts entries in a `collections.Counter` and records the phase order in
its `finally` (also when the body raises); a user decorator (`functools.wraps`) that
counts calls of the loss helper and keeps its last Python arguments; metrics kept in a
`collections.defaultdict(list)`; walrus `:=` in a tensor test (`if (gn :=
tf.linalg.global_norm(grads)) > clip:`) and in a list comprehension; a `ValueError`
raised inside a phase on a bad batch (the phase bookkeeping must still be closed)."""
import collections
import contextlib
import functools

import keras
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16
CLIP = 1.5


class Book:
    def __init__(self):
        self.stack = []
        self.entered = collections.Counter()
        self.order = []
        self.metrics = collections.defaultdict(list)
        self.calls = collections.Counter()
        self.last_args = None

    @contextlib.contextmanager
    def phase(self, name):
        self.stack.append(name)
        self.entered[name] += 1
        try:
            yield len(self.stack)
        finally:
            self.order.append("/".join(self.stack))
            self.stack.pop()


BOOK = Book()


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        BOOK.calls[fn.__name__] += 1
        BOOK.last_args = (len(args), tuple(sorted(kwargs)))
        return fn(*args, **kwargs)
    return wrapper


@counted
def loss_fn(pred, y, *, smooth=0.0):
    y = y * (1.0 - smooth) + 0.5 * smooth
    return tf.reduce_mean(keras.losses.binary_crossentropy(y, pred, from_logits=True))


class State:
    def __init__(self):
        self.model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                                       keras.layers.Dense(1)])
        self.opt = keras.optimizers.SGD(0.2)
        self.clipped = 0
        self.step = 0


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    n = 6
    x = rng.randn(n, 5).astype(np.float32) * (4.0 if i % 5 == 3 else 1.0)
    y = (x[:, :1] + x[:, 1:2] > 0).astype(np.float32)
    if i == 9:
        x = x[:, :4]  # a bad batch: the wrong feature count
    return tf.constant(x), tf.constant(y), 0.1 * (i % 2)


@JIT
def train_step(s, x, y, smooth):
    with BOOK.phase("step") as depth:
        with BOOK.phase("forward"):
            if x.shape[-1] != 5:
                raise ValueError(f"expected 5 features, got {x.shape[-1]}")
            with tf.GradientTape() as tape:
                loss = loss_fn(s.model(x), y, smooth=smooth)
        with BOOK.phase("backward"):
            grads = tape.gradient(loss, s.model.trainable_variables)
            if (gn := tf.linalg.global_norm(grads)) > CLIP:
                grads = [g * (CLIP / gn) for g in grads]
                s.clipped += 1
            s.opt.apply_gradients(zip(grads, s.model.trainable_variables))
        BOOK.metrics["loss"].append(loss)
        BOOK.metrics["gnorm"].append(gn)
        BOOK.metrics["big"].append([i for i, g in enumerate(grads) if tf.norm(g) > 0.5])
        s.step += 1
        return loss, gn, depth


STEP = train_step
