"""`and`/`or`/`not` and conditional expressions as values (transform/bool_values.py): the
rewrite itself (golden text), and the converted code run by the plain and the profiling
runtime, compared with plain Python on what a rewrite could get wrong: the value returned
(the operand itself, not a bool), the order and number of evaluations and truth tests,
short-circuit (an operand that prints, appends or raises)."""
import tensorflow as tf

from janus.transform import convert
from janus.transform.runtime import Runtime
from tests.differential import assert_same


def values(t, k, xs):
    c = t > 0 or k > 1
    d = k is None or t
    e = not t
    y = t if k > 2 else -t
    z = (t if t > 0 else -t) and k
    if t > 0 or not k:
        xs.append(1)
    w = [a for a in xs if a or k]
    return c, d, e, y, z, w


EXPECTED = """
def janus__factory(janus__):

    def values(t, k, xs):
        c = janus__.or_value(0, t > 0, lambda: k > 1)
        d = k is None or t
        e = janus__.not_value(1, t)
        y = janus__.if_value(2, k > 2, lambda: t, lambda: -t)
        z = janus__.and_value(4, janus__.if_value(3, t > 0, lambda: t, lambda: -t), lambda: k)
        if janus__.test(5, t > 0) or not janus__.test(6, k):
            janus__.call(7, janus__.ld_attr(xs, 'append'), 1)
        w = [a for a in xs if a or k]
        return (c, d, e, y, z, w)
    return values
"""


def test_values_become_hooks_with_thunks_and_tests_keep_their_own():
    assert convert(values).code.strip() == EXPECTED.strip()


def walrus_and_super(xs):
    a = xs or (ys := [1])
    b = 1 if xs else (lambda: 2)()
    return a, b


def test_an_operand_a_thunk_would_change_stays_python():
    code = convert(walrus_and_super).code
    assert "or_value" not in code and "if_value" in code


class Truth:
    """Counts its truth tests, as a tensor's `__bool__` would be asked."""

    def __init__(self, value, log):
        self.value, self.log = value, log

    def __bool__(self):
        self.log.append(f"bool {self.value}")
        return bool(self.value)


def chain(log, a, b, c):
    def noisy(v):
        log.append(f"eval {v}")
        print("evaluated", v)
        return Truth(v, log)
    first = noisy(a) or noisy(b) or noisy(c)
    second = noisy(a) and noisy(b) and noisy(c)
    third = noisy(b) if noisy(a) else noisy(c)
    fourth = not noisy(c)
    fifth = noisy(a) or [][0] if noisy(b) else noisy(c)
    return [first.value, second.value, third.value, fourth, fifth.value]


def _outcome(fn, *args):
    try:
        return "returned", fn(*args)
    except Exception as error:  # noqa: BLE001 - compared
        return "raised", type(error)


def test_order_truth_tests_and_short_circuit_are_pythons():
    code = convert(chain).code
    assert code.count("or_value") == 3 and code.count("and_value") == 2 and \
        code.count("if_value") == 2 and "not_value" in code
    calls = [([], 1, 0, 2), ([], 0, 0, 0), ([], 0, 3, 1), ([], 2, 0, 0), ([], 0, 1, 5)]
    assert_same(chain, calls)  # (profiled calls, then the converted code run plainly)
    converted = convert(chain).instantiate(Runtime(convert(chain)))
    for log, a, b, c in calls:
        plain_log, hooked_log = [], []
        assert _outcome(chain, plain_log, a, b, c) == _outcome(converted, hooked_log, a, b, c)
        assert plain_log == hooked_log


def returns_operands(xs, ys, flag):
    a = xs or ys
    b = xs and ys
    c = xs if flag else ys
    a.append(len(a))
    return a, b, c


def test_the_operand_itself_is_the_value():
    assert "janus__.and_value" in convert(returns_operands).code
    fn = convert(returns_operands).instantiate(Runtime(convert(returns_operands)))
    xs, ys = [1], [2]
    a, b, c = fn(xs, ys, False)
    assert a is xs and b is ys and c is ys and xs == [1, 1]
    xs, ys = [], [2]
    a, b, c = fn(xs, ys, True)
    assert a is ys and b is xs and c is xs


def tensor_values(x, k):
    big = tf.reduce_sum(x) > 1.0 or k > 2
    small = tf.reduce_sum(x) < -1.0 and k
    return big, small, not tf.reduce_all(x > 0)


def test_tensor_operands_while_profiling_are_pythons():
    assert "janus__.not_value" in convert(tensor_values).code
    calls = [(tf.constant([1.0, 2.0]), 0), (tf.constant([-1.0, -2.0]), 3),
             (tf.constant([-1.0, 0.5]), 0)]
    assert_same(tensor_values, calls, profile_calls=10)


def chains(log, a, b, c):
    def v(x):
        log.append(x)
        return x
    first = v(a) < v(b) <= v(c)
    second = v(a) == v(a) in [v(b), 1] is not None
    return first, second


def test_a_chained_comparison_evaluates_each_operand_once_in_order():
    assert convert(chains).code.count("compare_chain") == 2
    converted = convert(chains).instantiate(Runtime(convert(chains)))
    for a, b, c in [(1, 2, 3), (3, 2, 1), (1, 2, 2), (1, 1, 0), ("a", 1, 2)]:
        plain_log, hooked_log = [], []
        assert _outcome(chains, plain_log, a, b, c) == _outcome(converted, hooked_log, a, b, c)
        assert plain_log == hooked_log
