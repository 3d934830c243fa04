"""Heap dicts written with keys the graph computes (graphgen/keyed_writes.py).

`s.loss_at[s.steps] = loss` with a step counter janus feeds kept the counter guarded (a
graph per value, then plain calls: F145's refusal of hashing a fed number). A heap dict
the trace writes to before reading it is now write-only: the writes are replayed after
the run with the keys' values, its keys are not guarded (it grows every call). A read of
it in the same call copies it again, the key's number guarded as before. Each test
compares janus with plain Python call by call, the dicts included."""
import tensorflow as tf

import janus
from tests.differential import assert_same

LOG = {}


class State:
    def __init__(self):
        self.d = {"start": 0}
        self.k = 0


def _x(i):
    return tf.constant([1.0 + i, 2.0 - i, 0.5 * i])


def by_step(s, x):
    s.k += 1
    loss = tf.reduce_mean(tf.square(x))
    s.d[s.k] = loss
    s.d[(s.k, "seen")] = True
    s.d["last"] = s.k * 2
    return loss


def test_a_step_counter_as_a_key_is_one_graph_for_every_step():
    jitted = janus.jit(by_step)
    stats = assert_same(by_step, [(_x(i),) for i in range(16)], make_state=State,
                        jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert stats.generations <= 3 and stats.graph_calls + stats.plain_calls >= 12, stats
    assert any("only written" in line for line in jitted.plan.describe()), jitted.plan


def by_argument(s, k, x):
    y = tf.reduce_sum(x)
    s.d[k] = y
    LOG[f"n{k}"] = y * 2.0
    LOG[(k, k + 1)] = float(k) / 2
    return y


KEYS = [0, 1, 2, 3, 4, 1, 2, 3, 0, 4, 2, 1, 5, 6]


def test_keys_that_repeat_overwrite_in_place_and_text_and_tuple_keys():
    LOG.clear()
    plain_log = {}
    stats = assert_same(by_argument, [(k, _x(i)) for i, k in enumerate(KEYS)],
                        make_state=State)
    assert stats.internal_errors == 0 and stats.generations <= 3, stats
    for i, k in enumerate(KEYS):  # what plain Python leaves in LOG (both sides wrote it)
        plain_log[f"n{k}"] = float(tf.reduce_sum(_x(i))) * 2.0
        plain_log[(k, k + 1)] = float(k) / 2
    assert list(LOG) == list(plain_log)
    assert all(abs(float(LOG[key]) - plain_log[key]) < 1e-5 for key in plain_log)
    LOG.clear()


def written_then_read(s, x):
    s.k += 1
    y = tf.reduce_sum(x)
    s.d[s.k] = y
    if len(s.d) > 3:
        y = y + 1.0
    return y, s.d.get(s.k - 1)


def test_a_dict_read_after_the_write_is_copied_again():
    stats = assert_same(written_then_read, [(_x(i),) for i in range(10)], make_state=State)
    assert stats.internal_errors == 0, stats


def asked_and_returned(s, x):
    kinds = (isinstance(s.d, dict), type(s.d) is dict, type(s.d).__name__)
    s.k += 1
    s.d[s.k] = tf.reduce_sum(x)
    s.d[s.k + 100] = kinds
    return s.d


def test_a_write_only_dict_is_a_dict_and_returned_after_its_writes():
    jitted = janus.jit(asked_and_returned)  # (isinstance and type() do not read it)
    stats = assert_same(asked_and_returned, [(_x(i),) for i in range(10)], make_state=State,
                        jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert any("only written" in line for line in jitted.plan.describe()), jitted.plan


def method_after_write(s, k, x):
    s.d[k] = tf.reduce_sum(x)
    s.d.update({"after": 1})
    return s.d.pop("start", None)


def test_a_dict_method_after_the_write_reads_it():
    stats = assert_same(method_after_write, [(k, _x(i)) for i, k in enumerate(KEYS)],
                        make_state=State)
    assert stats.internal_errors == 0, stats


def under_a_tensor_test(s, x):
    s.k += 1
    y = tf.reduce_sum(x)
    if y > 2.0:
        s.d[s.k] = y
    else:
        s.d[-s.k] = -y
    return y


def test_writes_under_a_tensor_test():
    jitted = janus.jit(under_a_tensor_test)
    stats = assert_same(under_a_tensor_test, [(_x(i % 3),) for i in range(12)],
                        make_state=State, jitted=jitted)
    assert stats.internal_errors == 0, stats
    assert any("only written" in line for line in jitted.plan.describe()), jitted.plan
