"""The loop shapes rewritten for one tf.while_loop (transform/exit_tests.py, continues.py,
several exit tests in control_flow.py) run exactly as the original under the plain
runtime: same results and the same operands evaluated in the same order (a log)."""
import pytest

from janus.transform import convert
from janus.transform.runtime import Runtime


def plain(fn):
    converted = convert(fn)
    return converted.instantiate(Runtime.for_function(converted))


def compound(xs, k, log):
    out = []
    for x in xs:
        if (log.append(("a", x)) or x > 5) or not (log.append(("b", x)) or len(out) < k):
            break
        out.append(x)
    return out


def continues(xs, log):
    out = []
    total = 0
    for x in xs:
        total += x
        if x % 3 == 0:
            log.append(("skip", x))
            continue
        out.append(x)
        if log.append(("test", x)) or total > 12:
            break
        if x % 2 == 0:
            continue
        log.append(("odd", x))
    return out, total


def two_exits(xs, log):
    out = []
    i = 0
    while i < len(xs):
        x = xs[i]
        i += 1
        if log.append(("first", x)) or x < 0:
            break
        out.append(x)
        if log.append(("second", x)) or len(out) >= 3:
            break
    return out, i


CASES = [
    (compound, lambda log: ([1, 2, 9, 3], 5, log)),
    (compound, lambda log: ([1, 2, 3, 4], 2, log)),
    (compound, lambda log: ([], 2, log)),
    (compound, lambda log: ([7], 0, log)),
    (continues, lambda log: ([1, 3, 4, 5, 6, 7, 2], log)),
    (continues, lambda log: ([3, 6, 9], log)),
    (continues, lambda log: ([13, 1], log)),
    (two_exits, lambda log: ([1, 2, -1, 4], log)),
    (two_exits, lambda log: ([1, 2, 3, 4, 5], log)),
    (two_exits, lambda log: ([-1], log)),
    (two_exits, lambda log: ([], log)),
]


@pytest.mark.parametrize("fn, args", CASES)
def test_rewritten_loops_run_as_the_original(fn, args):
    expected_log, actual_log = [], []
    assert plain(fn)(*args(actual_log)) == fn(*args(expected_log))
    assert actual_log == expected_log


def test_the_shapes_take_the_functional_form():
    assert "janus__.either(" in convert(compound).code and \
        "janus__.negate(" in convert(compound).code
    code = convert(continues).code
    assert "janus__skip_" in code and "for_stmt(" in code
    assert "while_stmt(" in convert(two_exits).code
