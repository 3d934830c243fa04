"""Error handling users write: try/except around a tensor op that may fail on bad input
(InvalidArgumentError from a gather), skipped batches counted, a `finally` that
restores a flag, and a ValueError of their own re-raised as RuntimeError."""
import numpy as np
import tensorflow as tf

JIT = globals().get("JIT", lambda fn: fn)
CALLS = 16


class State:
    def __init__(self):
        self.table = tf.Variable(tf.random.normal([5, 3], seed=13))
        self.skipped = 0
        self.busy = False
        self.sums = []


def setup():
    return State()


def inputs(i):
    rng = np.random.RandomState(i)
    ids = rng.randint(0, 5, 4)
    if i in (5, 10):
        ids[2] = 7
    return (tf.constant(ids), 3 if i != 13 else 4)


@JIT
def step(s, ids, dim):
    s.busy = True
    try:
        if dim != 3:
            raise ValueError(f"dim {dim} != 3")
        try:
            rows = tf.gather(s.table, ids)
        except tf.errors.InvalidArgumentError:
            s.skipped += 1
            return None
        total = tf.reduce_sum(rows, axis=0)
        s.table.assign_add(tf.ones_like(s.table) * 0.01)
        s.sums.append(total)
        return total
    except ValueError as e:
        raise RuntimeError(f"bad config: {e}") from e
    finally:
        s.busy = False


STEP = step
