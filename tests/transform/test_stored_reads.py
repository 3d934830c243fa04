"""A tensor's value read where it stands and only stored, returned, printed or formatted
(`s.hist.append(float(loss))`, `return {"loss": float(loss)}`, `f"{loss.numpy():.4f}"`):
no graph break (janus/transform/stored_reads.py, F456). Before, each made the step run
split at that line. Every test compares janus with plain Python (values, their types,
printed text, the heap) and asserts the graphs ran. `t.numpy().item()` is such a read
too (a Python number: F460)."""
import numpy as np
import tensorflow as tf

from janus import source
from janus.transform import breaks
from tests.differential import assert_same


class Log:
    def __init__(self):
        self.w = tf.Variable([0.5, -1.0, 2.0])
        self.history = []
        self.best = None
        self.by_name = {}


def appended(s, x):
    loss = tf.reduce_sum(x * s.w)
    s.w.assign_sub(0.1 * x)
    s.history.append(float(loss))
    s.history.append(tf.argmax(x).numpy())
    return loss


def returned_in_a_dict(s, x):
    loss = tf.reduce_mean(x * s.w)
    acc = float(tf.reduce_max(x))
    return {"loss": float(loss), "acc": acc, "raw": loss.numpy()}, bool(loss > 0)


def stored_and_formatted(s, x):
    loss = tf.reduce_sum(tf.square(x - s.w))
    s.best = loss.numpy()
    s.by_name["loss"] = float(loss)
    print(f"loss {loss.numpy():.4f} at {int(tf.argmin(x))}")
    print("max", float(tf.reduce_max(x)), tf.reduce_min(x).numpy())
    return loss


def _calls(n=8):
    rng = np.random.RandomState(0)
    return [(tf.constant(rng.randn(3).astype(np.float32)),) for _ in range(n)]


def test_appended_reads_stay_in_the_graph():
    stats = assert_same(appended, _calls(), make_state=Log)
    assert stats.graph_calls >= 5 and stats.fallback_calls == 0, stats


def test_reads_returned_in_literals_stay_in_the_graph():
    stats = assert_same(returned_in_a_dict, _calls(), make_state=Log)
    assert stats.graph_calls >= 5 and stats.fallback_calls == 0, stats


def test_stored_and_formatted_reads_stay_in_the_graph():
    stats = assert_same(stored_and_formatted, _calls(), make_state=Log)
    assert stats.graph_calls >= 5 and stats.fallback_calls == 0, stats


def items(s, x):
    loss = tf.reduce_sum(x * s.w)
    s.history.append(loss.numpy().item())  # (a Python float: numpy's item)
    k = tf.argmax(x).numpy().item()  # (a Python int)
    if k == 1:
        s.best = (x > 0.0)[0].numpy().item()  # (a Python bool)
    return {"loss": loss.numpy().item(), "k": k}


def test_item_of_a_read_is_the_python_number_in_the_graph():
    stats = assert_same(items, _calls(10), make_state=Log)
    assert stats.graph_calls >= 5, stats


def test_a_vector_s_read_is_still_a_break():
    def vector(s, x):
        s.history.append(x.numpy())  # (an array: numpy's, on the host)
        return x * 2.0

    stats = assert_same(vector, _calls(6), make_state=Log)
    assert stats.graph_calls == 0, stats


def test_reads_used_otherwise_are_breaks():
    def used(s, x):
        a = x.numpy().tolist()     # a numpy method of it (`.item()` is kept: F460)
        b = [float(x)][0]          # indexed
        c = s.f(float(x))          # handed to a function
        d = x.numpy() + np.ones(2)  # numpy arithmetic with an array
        return a, b, c, d

    node, _ = source.parse_function(used)
    assert not breaks.in_graph_reads(node, used.__globals__)
