"""Two functions with the same name, body and first line in different files are different
functions: each is converted with its own globals (code objects compare equal by content,
so a conversion cache keyed by them mixed them up)."""
import importlib.util

import tensorflow as tf

import janus

SOURCE = '''import tensorflow as tf
SCALE = {scale}


def scaled(x):
    return x * SCALE
'''


def _module(tmp_path, name, scale):
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE.format(scale=scale))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_equal_code_in_two_files_is_converted_twice(tmp_path):
    first, second = _module(tmp_path, "first_copy", 2.0), _module(tmp_path, "second_copy", 3.0)
    assert first.scaled.__code__ == second.scaled.__code__  # what fooled the cache
    a, b = janus.jit(first.scaled), janus.jit(second.scaled)
    x = tf.constant(1.0)
    for _ in range(4):
        assert float(a(x)) == 2.0
        assert float(b(x)) == 3.0
    assert janus.stats(a).graph_calls == 2 and janus.stats(b).graph_calls == 2
