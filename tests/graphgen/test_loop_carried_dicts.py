"""A loop janus builds as one tf.while_loop asks whether it can carry each name's value:
a dict whose keys do not sort (`{0: t, "n": 1}`) made tf.nest raise a TypeError there (an
internal error of janus's; the calls ran plainly). Compared with plain Python call by
call."""
import tensorflow as tf

from tests.differential import assert_same


def mixed_keys(x, xs):
    k, t = 0, tf.constant(0)
    while t < 2 and tf.reduce_max(x) > 0.5:
        t += 1
        d = {}
        for i, v in enumerate(xs):
            d[i] = v * 0.5
            d["n"] = d.get("n", 0) + 1
        for key in sorted(q for q in d if q != "n"):
            x = x + d[key]
        k = k + d.get("n", 0)
        if tf.reduce_max(x) > 2.0 and k % 2 == 0:
            break
    return x, k


def test_a_dict_of_mixed_key_types_in_such_a_loop():
    # (fuzz v71 seed 2860140: tf.nest sorted the dict's keys while janus asked whether the
    # loop could carry it: a TypeError of janus's, an internal error)
    assert_same(mixed_keys, [(tf.constant([1.0, 0.2 * i]), [tf.constant([1.0, 1.0])])
                             for i in range(6)])
