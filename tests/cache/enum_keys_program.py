"""A training step keyed by Enum members (F427), for tests/cache/test_warm_enum_keys.py:
made in one process, warm-started in another."""
import enum

import tensorflow as tf


class Split(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class Color(enum.IntEnum):
    RED = 1
    BLUE = 2


class Mode(str, enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


class State:
    def __init__(self):
        self.by_split = {Split.TRAIN: tf.Variable(1.0), Split.EVAL: tf.Variable(2.0)}
        self.metrics = {Mode.TRAIN: 0.0, Mode.EVAL: 0.0}
        self.counts = {Color.RED: 0, Color.BLUE: 5}


WEIGHTS = {Color.RED: tf.constant(3.0), Color.BLUE: tf.constant(0.5)}


def step(s, x):
    v = s.by_split[Split.TRAIN]
    v.assign_add(x * WEIGHTS[Color.RED])
    s.metrics[Mode.EVAL] += 1.5
    s.counts[Color.RED] += 1
    seen = {Color.BLUE: x, Split.EVAL: 2.0}
    return v + seen[Color.BLUE] * seen[Split.EVAL], seen


def snapshot(s, result) -> dict:
    """What plain Python and janus must agree on: the result and the heap, keys by repr."""
    value, seen = result
    return {"value": float(value), "seen": [[repr(k), float(v)] for k, v in seen.items()],
            "by_split": [[repr(k), float(v.numpy())] for k, v in s.by_split.items()],
            "metrics": [[repr(k), v] for k, v in s.metrics.items()],
            "counts": [[repr(k), repr(v)] for k, v in s.counts.items()]}
