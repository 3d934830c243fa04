"""Warnings and janus's traces (graphgen/trace_warnings.py): a generation anywhere in the
process made Python forget which warnings it had shown once per location (a warning
plain Python shows once was shown again after each generation)."""
import warnings

import tensorflow as tf

import janus


def noisy(x):
    warnings.warn("this schedule is deprecated")  # Python shows it once (its location)
    return x


def doubled(x):
    return x * 2.0 + 1.0


def _shown(step):
    globals().pop("__warningregistry__", None)
    shown = []
    original = warnings.showwarning
    warnings.showwarning = lambda message, *rest, **kw: shown.append(str(message))
    try:
        with warnings.catch_warnings():  # (the test's own: before the calls)
            warnings.simplefilter("default")
            for i in range(6):
                noisy(tf.constant(1.0))
                step(tf.constant([float(i), 1.0]))
    finally:
        warnings.showwarning = original
    return shown


def test_a_warning_python_shows_once_is_shown_once_while_janus_generates():
    plain = _shown(doubled)
    jitted = janus.jit(doubled, plain_trial=False)
    assert _shown(jitted) == plain == ["this schedule is deprecated"]
    assert janus.stats(jitted).generations >= 1
