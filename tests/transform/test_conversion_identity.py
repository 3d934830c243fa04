"""Class: a conversion belongs to one code object (fuzz finding F2).

Code objects of textually identical functions in two modules compare *equal*; the
conversion cache was keyed by that equality, so the second module's function ran the
first module's conversion (its globals): wrong values from the first call.
"""
import importlib.util

import tensorflow as tf

import janus
from tests.differential import assert_same

SOURCE = '''
SCALE = {scale}


def helper(x):
    return x * SCALE


def f(x):
    return helper(x) + 1.0
'''


def _module(tmp_path, name, scale):
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE.format(scale=scale))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_identical_functions_in_two_modules_keep_their_own_globals(tmp_path):
    a = _module(tmp_path, "janus_identity_a", 2.0)
    b = _module(tmp_path, "janus_identity_b", 3.0)
    assert a.f.__code__ == b.f.__code__  # what made them share a conversion
    calls = [(tf.constant([1.0, 2.0]),)] * 4
    assert_same(a.f, calls)
    stats = assert_same(b.f, calls)
    assert stats.graph_calls >= 1
    assert janus.jit(b.f)(tf.constant([1.0])).numpy().tolist() == [4.0]
