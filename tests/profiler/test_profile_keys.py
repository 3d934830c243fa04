"""Class: functions that share a qualified name never share profile records or plan
decisions (generator v4 rule same_qualname).

Profiles and plans name a function by a key; it was the qualified name alone, so two
same-named nested defs in two branches (`f.<locals>.cb`, as plain Python names them),
or module-level helpers of two modules, pooled their site statistics: one def's
branch outcomes decided the other's specialization, whose in-graph guard then failed
on every call (correct, but eager). The key now adds where the def starts; closures of
one def (one code, one site table) still share it.
"""
import tensorflow as tf

import janus
from tests.differential import assert_same


def same_named_defs(x, flag):
    acc = x
    for i in range(2):
        if (i == 0) == flag:
            def cb(a):
                if tf.reduce_sum(a) > 0.0:
                    a = a * 2.0
                return a
        else:
            def cb(a):
                if tf.reduce_sum(a) < -100.0:
                    a = a - 1.0
                return a
        acc = cb(acc)
    return acc


def make(c):
    def scaled(a):
        if tf.reduce_sum(a) > c:
            return a * 0.5
        return a + c
    return scaled


def closures_of_one_def(x):
    return make(1.0)(x) + make(100.0)(x)


def _functions(jitted) -> set:
    return {key for key, _ in jitted.profile.sites}


def test_same_named_defs_have_their_own_profile_records():
    jitted = janus.jit(same_named_defs)
    c = tf.constant([1.0, 2.0])
    for flag in (True, True):
        jitted(c, flag)
    names = [key for key in _functions(jitted) if ".<locals>.cb" in key]
    assert len(names) == 2, names


def test_same_named_defs_run_as_graphs_without_guard_failures():
    c = tf.constant([1.0, 2.0])
    calls = [(c, True)] * 4 + [(c, False)] * 3 + [(-c, True)] * 2 + [(c * 3.0, False)] * 3
    stats = assert_same(same_named_defs, calls)
    # (with one pooled record, each def was specialized to the other's outcomes)
    assert not [k for k in stats.guard_failures if "100.0" in k], stats.guard_failures
    assert stats.graph_calls >= 8, stats


def test_closures_of_one_def_share_one_record_and_stay_correct():
    jitted = janus.jit(closures_of_one_def)
    x = tf.constant([1.0, 2.0])
    for _ in range(2):
        jitted(x)
    assert len([k for k in _functions(jitted) if ".<locals>.scaled" in k]) == 1
    assert_same(closures_of_one_def, [(x,)] * 4 + [(x * 60.0,)] * 3)
