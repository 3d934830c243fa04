"""Text formatted from a fed number or a tensor, read by Python during a trace
(graphgen/formatted_text.py, transform/text.py; F145's open part).

In a trace, `str(n)`, `f"k{n}"`, `"%s" % n`, `f"{loss}"` are markers the write-back
fills in after the run. Python decisions on them were taken on the marker's characters
and baked into the graph: `str(n) == "3"` never held, `len(f"{n}")` was the marker's
length, `f"k{n}" in d` never held, `text[:1]` wrote `'\\x00'` to the heap. Now the text
is a `FormattedText` that refuses to be read: the fed number stays guarded (one graph
per value), a tensor's text makes the call run plainly. Each test compares janus with
plain Python call by call (results, printed output, the heap); each fails without the
fix but the last, which checks that text only printed, stored or returned still makes
one graph for every value of the number."""
import os
import sys

import tensorflow as tf

from tests.differential import assert_same


class State:
    def __init__(self):
        self.d = {"k1": 1.0, "k3": 2.0}
        self.log = []
        self.name = ""


def equal(s, n, x):
    y = tf.reduce_sum(x)
    if str(n) == "3":
        y = y * 2.0
    return y


def length(s, n, x):
    return tf.reduce_sum(x) * float(len(f"{n}"))


def member(s, n, x):
    y = tf.reduce_sum(x)
    if f"k{n}" in s.d:
        y = y + s.d[f"k{n}"]
    if str(n) in ["3", "5"]:
        y = y + 1.0
    if "2" in f"{n}":
        y = y - 1.0
    return y


def methods(s, n, x):
    text = f"run{n}"
    s.name = text.upper()
    s.log.extend(f"a {n} b".split())
    return tf.reduce_sum(x) + (1.0 if text.endswith("3") else 0.0)


def parsed(s, n, x):
    digits = str(n)
    value = int(digits) if digits.isdigit() else -1
    return tf.reduce_sum(x) * float(value)


def truth_of_a_slice(s, n, x):
    y = tf.reduce_sum(x)
    rest = str(n)[1:]
    if rest:
        y = y + 1.0
    s.name = rest or "none"
    return y


def compared(s, n, x):
    y = tf.reduce_sum(x)
    return y + (1.0 if str(n) < "2" else 0.0)


def padded(s, n, x):
    y = tf.reduce_sum(x)
    s.log.append(f"[{str(n):>3}]")
    s.log.append("[%3s]" % (str(n),))
    s.log.append(repr(str(n)))
    return y


def joined(s, n, x):
    y = tf.reduce_sum(x)
    key = "/".join([str(n), "b"])
    label = "{}-{}".format(n, "a")
    s.name = key
    return y + (1.0 if key.endswith("3/b") else 0.0) + float(len(label))


DIRECTORY = "."  # (the test's temporary directory)
KNOWN_PATHS = ()  # (the paths of its files named 3 and 5; `os.path.exists` would ask the
# file system on every call, a graph break: graphgen/outside_world.py)


def a_path(s, n, x):
    y = tf.reduce_sum(x)
    path = os.path.join(DIRECTORY, f"{n}")
    return y + (1.0 if path in KNOWN_PATHS else 0.0)


def augmented(s, n, x):
    s.name += str(n)
    label = "<%s>"
    label %= (n,)
    return tf.reduce_sum(x) + float(len(s.name)) + (1.0 if label == "<3>" else 0.0)


def tensor_text(s, n, x):
    y = tf.reduce_max(x)
    if "2" in f"{y}":
        y = y + 10.0
    s.log.append(len(str(y)))
    return y


NS = [1, 3, 2, 3, 12, 1, 3, 5, 3, 22, 3, 2, 1, 3]


def _calls():
    return [(n, tf.constant([1.0, 2.0 * (i % 3)])) for i, n in enumerate(NS)]


def _same(fn):
    stats = assert_same(fn, _calls(), make_state=State)
    assert stats.internal_errors == 0, stats
    return stats


def test_text_of_a_fed_int_compared_with_equals():
    assert _same(equal).graph_calls > 0


def test_the_length_of_text_of_a_fed_int():
    assert _same(length).graph_calls > 0


def test_in_tests_on_text_of_a_fed_int():
    assert _same(member).graph_calls > 0


def test_str_methods_on_text_of_a_fed_int():
    assert _same(methods).graph_calls > 0


def test_text_of_a_fed_int_parsed_back():
    assert _same(parsed).graph_calls > 0


def test_the_truth_of_text_sliced_from_a_fed_int():
    assert _same(truth_of_a_slice).graph_calls > 0


def test_text_of_a_fed_int_ordered():
    assert _same(compared).graph_calls > 0


def test_text_of_a_fed_int_padded_or_quoted():
    assert _same(padded).graph_calls > 0


def test_join_and_format_keep_the_text_formatted():
    assert _same(joined).graph_calls > 0


def test_a_path_made_of_text_of_a_fed_int(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "DIRECTORY", str(tmp_path))
    monkeypatch.setattr(sys.modules[__name__], "KNOWN_PATHS",
                        tuple(os.path.join(str(tmp_path), name) for name in ("3", "5")))
    assert _same(a_path).graph_calls > 0


def test_text_added_to_a_heap_string():
    _same(augmented)


def test_text_of_a_tensor_read_by_python():
    _same(tensor_text)


def raising(s, n, x):
    y = tf.reduce_sum(x)
    if n == 5:
        s.name = "%s" % n % 3            # TypeError: not all arguments converted
    if n == 2:
        y = y + float(n % (n - 2))       # ZeroDivisionError
    if n == 12:
        s.name = str(n).join([1, 2])     # TypeError: expected str instance
    return y


def test_text_operations_that_raise_raise_as_in_python():
    # (the `%` hook and FormattedText's methods raise the user's error, not janus's)
    _same(raising)


def logged(s, n, x):
    loss = tf.reduce_mean(x)
    print(f"step {n} loss {loss}", "%s!" % n)
    s.log.append(f"{n}")
    s.log.append("n=" + str(n) + "/" + repr(n))
    s.name = f"run{n}"
    return f"r{n}:" + str(loss) + " ".join([str(n), "x"])


def test_text_only_printed_stored_and_returned_stays_one_graph():
    stats = _same(logged)
    assert stats.generations <= 2 and stats.graph_calls >= len(NS) - 4, stats
