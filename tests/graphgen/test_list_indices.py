"""Items of a list janus holds as stacked tensors, indexed by a number janus feeds
(graphgen/list_indices.py): `xs[i]` in a loop over `range(len(xs))` when the length
varies, compared with plain Python, janus's own errors raised."""
import tensorflow as tf

import janus
from tests.differential import assert_same


def _calls(lengths):
    return [(tf.constant([1.0, 2.0]), [tf.constant([float(k), 1.0]) for k in range(n)])
            for n in lengths]


def scale_each(x, xs):
    for i in range(len(xs)):
        xs[i] *= 0.5
        if tf.reduce_mean(x) > 10.0:
            xs[i] += x
    return xs


def test_items_indexed_by_a_fed_position_match_plain(monkeypatch):
    monkeypatch.setattr(janus.config, "raise_internal_errors", True)
    stats = assert_same(scale_each, _calls([2, 2, 2, 2, 1, 1, 3, 3, 1]))
    assert stats.internal_errors == 0
