"""Fed Python numbers as dict keys and set members (graphgen/keys.py, F145).

A Python int that changes from call to call (an argument, a step counter) is fed to the
graph as a scalar tensor. Python hashes a key's value, which the trace does not know:
`d[k] = y`, `d.setdefault(k, [])`, `d.get(k)`, `k in d`, `d.pop(k)` with `k` fed used
to make janus's stand-in a key of the user's dict (and lose the real key's update);
the next trace then failed on that key. Now hashing a fed number fails the trace at
that line and the number stays guarded (one graph per value), as for a count. Text
formatted from a fed number (`f"n{k}"`, `str(k)`) as a key is refused the same way.
Each test compares janus with plain Python call by call, the dicts included."""
import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.d = {}
        self.k = 0


def _x(i):
    return tf.constant([1.0 + i, 2.0 - i, 0.5 * i])


def store(s, k, x):
    y = tf.reduce_sum(x)
    s.d[k] = y
    return y


def group(s, k, x):
    y = tf.reduce_sum(x)
    s.d.setdefault(k, []).append(y)
    return y


def count_and_drop(s, k, x):
    y = tf.reduce_sum(x) + s.d.get(k, 0.0)
    if k in s.d:
        s.d[k] += y
    else:
        s.d[k] = y
    s.d.pop(k - 3, None)
    return y


def by_step(s, x):
    s.k += 1
    loss = tf.reduce_mean(tf.square(x))
    s.d[s.k] = loss
    s.d[(s.k, "seen")] = True
    return loss


def by_text(s, k, x):
    y = tf.reduce_sum(x)
    s.d[f"n{k}"] = y
    s.d[str(k)] = s.d.get(str(k), 0.0) + y
    return y


def local_table(k, x):
    y = tf.reduce_sum(x)
    table = {k: y, k + 1: 2.0 * y}
    return table[k] + table.get(k + 1, 0.0)


KEYS = [0, 1, 2, 3, 4, 1, 2, 3, 0, 4, 2, 1]


def _calls():
    return [(k, _x(i)) for i, k in enumerate(KEYS)]


def test_a_fed_int_written_as_a_dict_key_stays_a_python_int():
    stats = assert_same(store, _calls(), make_state=State)
    assert stats.internal_errors == 0 and stats.graph_calls > 0, stats


def test_setdefault_with_a_fed_int_key_groups_under_the_real_key():
    stats = assert_same(group, _calls(), make_state=State)
    assert stats.internal_errors == 0 and stats.graph_calls > 0, stats


def test_get_in_augmented_write_and_pop_with_a_fed_int_key():
    stats = assert_same(count_and_drop, _calls(), make_state=State)
    assert stats.internal_errors == 0 and stats.graph_calls > 0, stats


def test_a_step_counter_as_a_key_and_in_a_tuple_key():
    stats = assert_same(by_step, [(_x(i),) for i in range(8)], make_state=State)
    assert stats.internal_errors == 0, stats


def test_text_formatted_from_a_fed_int_as_a_key():
    stats = assert_same(by_text, _calls(), make_state=State)
    assert stats.internal_errors == 0 and stats.graph_calls > 0, stats


def test_a_local_dict_keyed_by_a_fed_int():
    stats = assert_same(local_table, _calls())
    assert stats.internal_errors == 0 and stats.graph_calls > 0, stats


def seen_before(s, k, x):
    y = tf.reduce_sum(x)
    if k in s.d.setdefault("seen", []):
        y = y + float(s.d["seen"].index(k))
    s.d["seen"].append(k)
    return y


def test_a_fed_int_searched_in_a_heap_list():
    # (`==` of a fed int is a fed bool, whose truth value refuses: guarded, as before)
    stats = assert_same(seen_before, _calls(), make_state=State)
    assert stats.internal_errors == 0, stats
