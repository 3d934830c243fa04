"""`match` statements (Python 3.10): the generated source renders (`ast.unparse`; the
third-party unparser janus used knew no `Match` node: every call ran plainly after an
internal error), and a pattern's captures (`case {"k": k, **rest}:`, `case [a, *rest]:`,
`case P() as p:`) are the function's locals, not module globals (janus guarded
`G['k']`: a graph per call, and the global's value where a global of that name
exists). Every test compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same

k = 100.0  # (a global the capture below shadows)


def dispatch(mode, x, cfg):
    match mode:
        case "double":
            y = x * 2.0
        case "scale" | "mul":
            y = x * cfg["k"]
        case _:
            raise ValueError(f"unknown mode {mode!r}")
    match cfg:
        case {"k": k, **rest} if k > 1:
            y = y + k + len(rest)
        case {"k": k}:
            y = y - k
    if tf.reduce_sum(y) > 3.0:
        y = y - 1.0
    return y


def test_match_on_a_mode_string_and_a_mapping():
    modes = ["double", "scale", "mul", "bad"]
    calls = [(modes[i % 4], tf.constant([float(i), 1.0]), {"k": i % 3, "z": 1})
             for i in range(12)]
    assert_same(dispatch, calls)


def captured(x, cfg):
    match cfg:
        case {"k": k}:
            y = x + k
        case [a, *rest]:
            y = x * a + len(rest)
        case _:
            y = x
    return y


def test_captures_are_locals_not_globals():
    calls = [(tf.constant([float(i), 1.0]), {"k": float(i)} if i % 2 else [2.0, 1, 2])
             for i in range(10)]
    stats = assert_same(captured, calls)
    # (one graph per kind of `cfg`, its numbers fed; a guard on the global `k` failed on
    # every call)
    assert stats.generations <= 3 and stats.graph_calls >= 6, stats
