"""janus's options (janus/config.py): a bad name or value is a clear error where it is
given (janus.jit, janus.config), never a later failure on every call or a silent flip."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


@pytest.mark.parametrize("options, error, words", [
    (dict(profile_calls="2"), TypeError, "profile_calls takes an int"),
    (dict(profile_calls=None), TypeError, "profile_calls takes an int"),
    (dict(max_specializations=-3), ValueError, "at least 1"),
    (dict(disabled="false"), TypeError, "disabled takes True or False"),
    (dict(xla="no"), TypeError, "xla takes True or False"),
    (dict(max_specializations=True), TypeError, "takes an int"),
    (dict(bogus=1), TypeError, "unknown janus option"),
])
def test_a_bad_option_is_refused_at_jit(options, error, words):
    with pytest.raises(error, match=words):
        janus.jit(lambda x: x * 2.0, **options)


def test_a_misspelled_or_bad_config_setting_is_refused(monkeypatch):
    with pytest.raises(AttributeError, match="no option 'max_specialisations'"):
        janus.config.max_specialisations = 2
    with pytest.raises(TypeError, match="strict takes True or False"):
        janus.config.strict = "no"
    monkeypatch.setattr(janus.config, "strict", 0)  # (0 and 1 are taken as bools)
    assert janus.config.strict is False


def scale(x, k):
    return x * k


def test_jit_of_a_jitted_function_with_options_makes_one_with_them():
    first = janus.jit(scale)
    assert janus.jit(first) is first
    second = janus.jit(first, max_specializations=2)
    assert second is not first and second.options == {"max_specializations": 2}
    calls = [(tf.constant([1.0, 2.0]), float(k % 3)) for k in range(8)]
    assert_same(scale, calls, jitted=second)
    with pytest.raises(TypeError, match="unknown janus option"):
        janus.jit(first, bogus=1)
