"""Differential tests of the Python constructs the AST passes rewrite: locals,
containers, loops, branches, exits, attribute/item access, calls into user code."""
import pytest
import tensorflow as tf

import janus
from tests.differential import assert_same


def c(value, dtype=tf.float32):
    return tf.constant(value, dtype)


# -- Python values as locals ---------------------------------------------------------------

def locals_fn(x, n):
    k = n * 2 + 1
    pair = (x, k)
    items = [x * i for i in range(3)]
    table = {"a": x, "b": k}
    table["c"] = items[-1]
    a, b = pair
    first, *rest = items
    text = "n=%d" % n
    return a * b + table["c"] + tf.cast(table["b"], tf.float32) + first + rest[0], \
        {"k": k, "n": len(items), "text": text, "pair": (k, n)}


def test_python_scalars_tuples_lists_dicts_as_locals():
    calls = [(c([1.0, 2.0]), 3), (c([0.5, -1.0]), 3), (c([2.0, 2.0]), 3),
             (c([3.0, 1.0]), 3), (c([-1.0, 4.0]), 3), (c([1.0, 1.0]), 4)]
    stats = assert_same(locals_fn, calls, profile_calls=2)
    assert stats.graph_calls >= 3


# -- loops -------------------------------------------------------------------------------

def for_list_range(xs, w):
    total = tf.zeros([2])
    for x in xs:
        total = total + x * w
    for i in range(3):
        total = total * 0.5 + i
    count = 0
    for _ in xs:
        count += 1
    return total, count


def test_for_over_python_list_and_range():
    def call(seed):
        return ([c([seed, 1.0]), c([2.0, seed]), c([seed, seed])], c(0.5 + seed))
    stats = assert_same(for_list_range, [call(float(i)) for i in range(6)], profile_calls=2)
    assert stats.graph_calls >= 4


def for_tensor(m):
    acc = tf.zeros([3])
    rows = 0
    for row in m:
        acc = acc + row * row
        rows += 1
    return acc, rows


def test_for_over_tensor_with_static_first_dim():
    calls = [(c([[1.0, 2.0, 3.0], [float(i), 0.0, -1.0], [0.5, 0.5, 0.5], [2.0, 1.0, 0.0]]),)
             for i in range(5)]
    stats = assert_same(for_tensor, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def while_python(x, n):
    i = 0
    while i < n:
        x = x * 2.0 - 1.0
        i += 1
    return x, i


def test_while_with_python_condition():
    calls = [(c([1.0, 2.0]), 3), (c([0.0, 1.0]), 3), (c([2.0, 5.0]), 3), (c([1.5, 1.0]), 3),
             (c([1.0, 2.0]), 2), (c([1.0, -2.0]), 3)]
    stats = assert_same(while_python, calls, profile_calls=2)
    assert stats.graph_calls >= 3


# -- branches on Python values -------------------------------------------------------------

def branches(x, mode):
    if mode == "double":
        y = x * 2.0
    elif mode == "square":
        y = x * x
    else:
        y = -x
    flag = "big" if len(mode) > 5 else "small"
    return y, flag


def test_if_elif_else_on_python_values():
    modes = ["double", "double", "double", "square", "neg", "double", "square", "neg"]
    calls = [(c([float(i), 2.0]), m) for i, m in enumerate(modes)]
    stats = assert_same(branches, calls, profile_calls=2)
    assert stats.graph_calls >= 3


# -- break / continue / early return -------------------------------------------------------

def loop_exits(xs, limit):
    total = tf.constant(0.0)
    for i, x in enumerate(xs):
        if i == 1:
            continue
        if i >= limit:
            break
        total += tf.reduce_sum(x)
    j = 0
    while True:
        j += 1
        if j > 3:
            break
    for k in range(10):
        if k == 2:
            return total * k + j
    return total


def test_break_continue_and_early_return_in_loops():
    def call(v, limit):
        return ([c([v, 1.0]), c([2.0, v]), c([v, v]), c([1.0, 1.0])], limit)
    calls = [call(1.0, 3), call(2.0, 3), call(3.0, 3), call(-1.0, 3), call(0.5, 2), call(1.0, 3)]
    stats = assert_same(loop_exits, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def early_return(x, n):
    if n == 0:
        return x
    result = x
    for i in range(n):
        result = result + 1.0
        if i == 1:
            return result * 10.0
    return result


def test_early_return_depends_on_python_argument():
    calls = [(c([1.0]), 2), (c([2.0]), 2), (c([3.0]), 2), (c([4.0]), 0), (c([5.0]), 1),
             (c([6.0]), 2), (c([7.0]), 0)]
    stats = assert_same(early_return, calls, profile_calls=2)
    assert stats.graph_calls >= 2


# -- attributes ----------------------------------------------------------------------------

class Accum:
    def __init__(self):
        self.total = tf.zeros([2])
        self.scale = 0.5
        self.last = None


def accumulate(self, x):
    self.total = self.total * self.scale + x
    self.last = x * 2.0
    return self.total + self.last


def test_attribute_reads_and_writes_carry_state_across_calls():
    calls = [(c([float(i), 1.0]),) for i in range(6)]
    stats = assert_same(accumulate, calls, make_state=Accum, profile_calls=2)
    assert stats.graph_calls >= 3


class Counter:
    def __init__(self):
        self.count = 0
        self.total = tf.zeros([])


def count_calls(self, x):
    self.count = self.count + 1
    self.total = self.total + tf.reduce_sum(x) * self.count
    return self.count


def test_python_int_attribute_changing_every_call_stays_correct():
    calls = [(c([float(i), 1.0]),) for i in range(5)]
    assert_same(count_calls, calls, make_state=Counter, profile_calls=1)


class Pipeline:
    def __init__(self):
        self.window = [tf.zeros([2]), tf.ones([2])]
        self.log = []
        self.outputs = []


def window_step(self, x):
    self.window[0] = self.window[1]
    self.window[1] = x
    self.outputs = []
    self.outputs.append(self.window[0] + self.window[1])
    self.outputs += [x * 3.0]
    return self.outputs[0]


def test_list_attribute_item_assignment_and_rebuilt_list():
    calls = [(c([float(i), -1.0]),) for i in range(6)]
    stats = assert_same(window_step, calls, make_state=Pipeline, profile_calls=2)
    assert stats.graph_calls >= 3


def log_step(self, x):
    self.log.append(x)
    self.log += [x + 1.0]
    return len(self.log)


def test_list_attribute_growing_every_call_stays_correct():
    calls = [(c([float(i), 0.0]),) for i in range(5)]
    assert_same(log_step, calls, make_state=Pipeline, profile_calls=1)


# -- list arguments and dicts ---------------------------------------------------------------

def grow(items, x):
    items.append(x)
    items += [x * 2.0]
    items[0] = items[0] + 1.0
    items.extend([x - 1.0])
    return len(items), items[-1]


def test_list_argument_mutation():
    calls = [([c(0.0), c(5.0)], c(float(i))) for i in range(6)]
    stats = assert_same(grow, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def dict_step(table, x):
    table["sum"] = table["sum"] + x
    table["scaled"] = table["sum"] * table["scale"]
    return table["scaled"]


class Tables:
    def __init__(self):
        self.table = {"sum": tf.zeros([2]), "scale": 2.0}


def test_dict_item_assignment_on_argument():
    calls = [({"sum": c([1.0, 2.0]), "scale": 3.0}, c([float(i), 1.0])) for i in range(5)]
    stats = assert_same(dict_step, calls, profile_calls=2)
    assert stats.graph_calls >= 2


def test_dict_item_assignment_on_heap_dict_carried_across_calls():
    calls = [(lambda s, i=i: (s.table, c([float(i), 1.0]))) for i in range(6)]
    stats = assert_same(dict_step, calls, make_state=Tables, profile_calls=2)
    assert stats.graph_calls >= 3


# -- calls into user functions and methods ---------------------------------------------------

def helper(x, k):
    return x * k + 1.0


class Scaler:
    def __init__(self, k):
        self.k = k
        self.bias_scale = 0.5

    def apply(self, x):
        return helper(x, self.k) - self.bias(x)

    def bias(self, x):
        return tf.reduce_mean(x) * self.bias_scale


def calls_fn(scaler, x):
    def local(y):
        return y * 2.0
    return scaler.apply(x) + helper(x, 2.0) + local(x)


def test_calls_into_user_functions_methods_and_nested_functions():
    calls = [(c([float(i), 2.0]),) for i in range(5)]
    stats = assert_same(calls_fn, calls, make_state=lambda: Scaler(3.0), profile_calls=2)
    assert stats.graph_calls >= 3


def lambda_fn(x):
    square = lambda y: y * y  # noqa: E731
    return square(x) + sum(map(lambda y: y * 0.5, [x, x]))


def test_lambda_called_inside_function():
    calls = [(c([float(i), 2.0]),) for i in range(5)]
    stats = assert_same(lambda_fn, calls, profile_calls=2)
    assert stats.graph_calls >= 3


class Model:
    def __init__(self):
        self.w = tf.constant([[1.0, 0.5], [0.0, 2.0]])
        self.h = tf.zeros([1, 2])

    def step(self, x):
        self.h = tf.tanh(x @ self.w + self.h)
        return tf.reduce_sum(self.h)

    jitted_step = janus.jit(step, profile_calls=2)


def test_jitted_method_bound_to_instance():
    calls = [(c([[float(i), 1.0]]),) for i in range(6)]
    stats = assert_same(Model.step, calls, make_state=Model,
                        jitted=lambda model, x: model.jitted_step(x), stats_of=Model.jitted_step)
    assert stats.graph_calls >= 3


# -- the harness itself ------------------------------------------------------------------------

class Obj:
    def __init__(self):
        self.items = [tf.zeros([1])]
        self.v = tf.Variable(1.0)


def quiet(obj, x):
    return x


@pytest.mark.parametrize("wrong", [
    lambda obj, x: x + 1.0,                                  # result
    lambda obj, x: print("extra") or x,                      # stdout
    lambda obj, x: obj.items.append(x) or x,                 # heap list
    lambda obj, x: obj.v.assign_add(1.0) and x,              # variable
    lambda obj, x: setattr(obj, "new", 1) or x,              # attribute
    lambda obj, x: tf.cast(x, tf.float64),                   # dtype
    lambda obj, x: 1 / 0,                                    # exception
])
def test_harness_detects_differences(wrong):
    with pytest.raises(AssertionError):
        assert_same(quiet, [(tf.constant([1.0]),)], make_state=Obj, jitted=wrong,
                    stats_of=janus.jit(quiet))


# -- arguments, globals, closures ---------------------------------------------------------------

OFFSET = tf.constant([0.5, -0.5])
SETTINGS = {"scale": 3.0}


def kw_fn(x, *extra, scale=2.0, shift=None, **named):
    y = x * scale + OFFSET * SETTINGS["scale"]
    if shift is not None:
        y = y + shift
    for value in extra:
        y = y - value
    return y, sorted(named)


def test_keyword_defaults_varargs_and_globals():
    from tests.differential import Call
    x = c([1.0, 2.0])
    calls = [Call(x, scale=3.0), Call(x, scale=3.0), Call(x * 2.0, scale=3.0),
             Call(x, c([1.0, 1.0]), shift=c([0.5, 0.5])), Call(x, c([1.0, 1.0]), shift=c([0.5, 0.5])),
             Call(x, c([1.0, 1.0]), shift=c([1.5, 0.5])), Call(x, tag=1), Call(x * 3.0, scale=3.0)]
    stats = assert_same(kw_fn, calls, profile_calls=2)
    assert stats.graph_calls >= 3


def make_closure_fn(weight, bias):
    def closure_fn(x):
        return x * weight + bias
    return closure_fn


def test_closure_variables():
    fn = make_closure_fn(c([2.0, 3.0]), 1.5)
    calls = [(c([float(i), 1.0]),) for i in range(5)]
    stats = assert_same(fn, calls, profile_calls=2)
    assert stats.graph_calls == 3
