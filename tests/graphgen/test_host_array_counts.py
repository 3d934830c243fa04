"""A bool or int vector's `.numpy()` counted where it stands (`s.correct += (pred ==
y).numpy().sum()`, `(pred == y).numpy().mean()`): no graph break (F461;
graphgen/host_arrays.py `HostArray._count`, transform/computed_reads.reduced_reads).
Before, the read split the step there. Compared with plain Python: numpy's int64 count
and float64 mean, their types on the heap, a count accumulated on it."""
import numpy as np
import tensorflow as tf

from tests.differential import assert_same


class Eval:
    def __init__(self):
        self.correct = 0
        self.top = 0
        self.accs = []


def counted(s, logits, y):
    pred = tf.argmax(logits, axis=1, output_type=tf.int32)
    s.correct += (pred == y).numpy().sum()
    s.top += tf.cast(logits > 0.0, tf.int32).numpy().sum() + tf.argmin(logits, 1).numpy().sum()
    s.accs.append((pred == y).numpy().mean())
    return (logits > 0.5).numpy().sum() * 2, s.correct


def _calls(rows=(4, 4, 4, 4, 4, 4, 4, 4, 0, 4, 4)):
    rng = np.random.RandomState(11)
    return [(tf.constant(rng.randn(n, 3).astype(np.float32)),
             tf.constant(rng.randint(0, 3, n).astype(np.int32))) for n in rows]


def test_counts_of_a_vector_s_values_stay_in_the_graph():
    stats = assert_same(counted, _calls(), make_state=Eval)
    assert stats.graph_calls >= 5, stats


def test_a_float_vector_s_sum_is_still_numpy_s():
    def float_sums(s, x, y):
        s.accs.append(x.numpy().sum())  # (numpy's pairwise float32 sum: float_sums.py)
        s.accs.append(tf.cast(x, tf.float64).numpy().mean())
        return x

    assert_same(float_sums, _calls(), make_state=Eval)
