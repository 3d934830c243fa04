"""A trainer full of Python object machinery around a small regression model: a config
object whose missing keys fall back through `__getattr__` to a defaults dict, a
`functools.cached_property` (computed once per config, counted), a `@property` with a
side effect (each read of `trainer.lr` counts and decays), a data descriptor class
(`Clipped`) validating assignments to `trainer.clip`, a `@classmethod` factory and a
`@staticmethod` helper called from the step, a `global` step counter, a `nonlocal` retry
counter in a closure; custom exception classes (`DivergedError(TrainingError)`) raised
on tensor conditions (`if not tf.math.is_finite(loss)`, `if loss > cfg.max_loss`) by the
jitted update (a helper it calls raises them), caught by its (plain) caller with
`try/except/else/finally` that count outcomes on the state, and re-raised to the
caller as `RuntimeError(...) from err` when the Python `strict` flag is set; some inputs are scaled to blow the loss up, one has a NaN.

janus (this session): agrees on all 20 calls (the exceptions, their `from` chains and
the descriptor/property side effects all match). Performance: the rare `raise
DivergedError(float(loss), ...)` branch taken on a few calls gets the `if` generalized
into tf.cond; tracing the raising branch then fails at each regeneration, and janus
ends up running `update` eagerly for good (60 calls with default settings: 10 graph,
45 eager; steady ~2x slower than plain); fixed in
session 26: a test whose branch raises is specialized to the other outcome and never
generalized (transform/sites.Site.raises_when), the raising calls rerun plainly."""
import functools

import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 20
GLOBAL_STEP = 0
DEFAULTS = {"lr": 0.1, "decay": 0.99, "max_loss": 50.0, "clip": 1.0}


class TrainingError(Exception):
    pass


class DivergedError(TrainingError):
    def __init__(self, value, step):
        super().__init__(f"loss {value:.3f} at step {step}")
        self.step = step


class NonFiniteError(TrainingError):
    pass


class Config:
    built = 0

    def __init__(self, **overrides):
        self._over = dict(overrides)

    def __getattr__(self, name):
        if name.startswith("_") or name not in DEFAULTS:
            raise AttributeError(name)
        return self._over.get(name, DEFAULTS[name])

    @functools.cached_property
    def scale(self):
        Config.built += 1
        return 1.0 / (1.0 + self.decay)

    @classmethod
    def from_string(cls, text):
        return cls(**{k: float(v) for k, v in (kv.split("=") for kv in text.split(","))})


class Clipped:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError("clip must be positive")
        setattr(obj, self.name, float(value))


def make_retry():
    retries = 0

    def retry():
        nonlocal retries
        retries += 1
        return retries
    return retry


class Trainer:
    clip = Clipped()

    def __init__(self, cfg):
        self.cfg = cfg
        self.clip = cfg.clip
        rng = np.random.RandomState(86)
        self.w = tf.Variable(rng.randn(3, 1).astype(np.float32))
        self._lr = cfg.lr
        self.lr_reads = 0
        self.outcomes = {"ok": 0, "diverged": 0, "nonfinite": 0, "finally": 0}
        self.retry = make_retry()
        self.last_error = None

    @property
    def lr(self):
        self.lr_reads += 1
        self._lr *= self.cfg.decay
        return self._lr

    @staticmethod
    def mse(pred, y):
        return tf.reduce_mean(tf.square(pred - y))


def setup():
    return Trainer(Config.from_string("lr=0.05,max_loss=40"))


def inputs(i):
    rng = np.random.RandomState(860 + i)
    x = rng.randn(6, 3).astype(np.float32) * (8.0 if i in (5, 11, 17) else 1.0)
    if i == 14:
        x[2, 1] = np.nan
    return tf.constant(x), tf.constant(x.sum(1, keepdims=True)), i in (11, 17)


def checked_loss(t, x, y):
    loss = t.mse(x @ t.w, y)
    if not tf.math.is_finite(loss):
        raise NonFiniteError("non-finite loss")
    if loss > t.cfg.max_loss:
        raise DivergedError(float(loss), GLOBAL_STEP)
    return loss


@JIT
def update(t, x, y):
    global GLOBAL_STEP
    GLOBAL_STEP += 1
    with tf.GradientTape() as tape:
        loss = checked_loss(t, x, y)
    g = tf.clip_by_norm(tape.gradient(loss, t.w), t.clip)
    t.w.assign_sub(t.lr * g)
    return loss, GLOBAL_STEP


def train_step(t, x, y, strict):
    try:
        loss, step = update(t, x, y)
    except DivergedError as err:
        t.outcomes["diverged"] += 1
        t.last_error = str(err)
        t.clip = t.clip * t.cfg.scale
        if strict:
            raise RuntimeError(f"step {err.step} diverged") from err
        return None, t.retry()
    except TrainingError:
        t.outcomes["nonfinite"] += 1
        return None, -1
    else:
        t.outcomes["ok"] += 1
    finally:
        t.outcomes["finally"] += 1
    return loss, step


STEP = train_step


def JITTED(state):
    return update
