"""Differential tests of graph generation: TF ops, tensor-valued control flow, Keras and
tf.Module, gradients, optimizers and variables, prints, and the RNN pattern."""
import numpy as np
import tensorflow as tf

import janus
from tests.differential import assert_same


def c(value, dtype=tf.float32):
    return tf.constant(value, dtype)


def arr(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


# -- tensor arithmetic and TF API --------------------------------------------------------------

def tf_api(x, w):
    h = tf.matmul(x, w) + 1.0
    h = tf.nn.softmax(h, axis=-1)
    both = tf.concat([h, -h], axis=1)
    flat = tf.reshape(both, [-1])
    picked = tf.gather(flat, [0, 2, 3])
    masked = tf.where(flat > 0, flat, tf.zeros_like(flat))
    return (tf.reduce_sum(picked) * 2 - tf.reduce_max(masked) / 3,
            tf.cast(tf.argmax(both, axis=1), tf.int32), tf.shape(both), x ** 2 % 1.5, -x @ w)


def test_tensor_arithmetic_and_tf_api_calls():
    calls = [(c(arr(2, 3, seed=i)), c(arr(3, 2, seed=10))) for i in range(5)]
    stats = assert_same(tf_api, calls, profile_calls=2)
    assert stats.graph_calls == 3


# -- tensor-valued branches ----------------------------------------------------------------------

def clip_branch(x):
    y = x
    if tf.reduce_max(x) > 10.0:
        y = x / 10.0
    elif tf.reduce_min(x) < -10.0:
        y = -x
    else:
        y = x + 1.0
    return y


def test_tensor_if_with_stable_outcome_is_specialized():
    calls = [(c([float(i), 2.0]),) for i in range(6)]
    stats = assert_same(clip_branch, calls, profile_calls=2)
    assert stats.graph_calls == 4
    assert stats.fallback_calls == 0


def test_tensor_if_whose_outcome_flips_after_profiling_generalizes_to_cond():
    jitted = janus.jit(clip_branch, profile_calls=2)
    small, big, neg = c([1.0, 2.0]), c([20.0, 1.0]), c([-20.0, 1.0])
    # phase 1: profiled with one outcome, then the outcome flips (guards fail, fallback)
    stats = assert_same(clip_branch, [(small,), (small,), (small,), (big,), (small,), (big,),
                                      (neg,), (small,), (big,), (neg,)], jitted=jitted)
    assert sum(stats.guard_failures.values()) >= 1
    assert stats.fallback_reasons["guard failure"] >= 1
    graph_calls = stats.graph_calls
    # phase 2: outcomes keep flipping; by now the branches are tf.cond: every call is a graph
    stats = assert_same(clip_branch, [(big,), (small,), (neg,), (big,), (small,)], jitted=jitted)
    assert stats.graph_calls == graph_calls + 5


def relu_branch(x, scale):
    if tf.reduce_sum(x) > 0:
        y = x * scale
    else:
        y = tf.zeros_like(x)
    return y + 1.0


def test_tensor_if_assigning_new_variable_in_both_branches_flips():
    jitted = janus.jit(relu_branch, profile_calls=2)
    pos, neg = c([1.0, 2.0]), c([-3.0, 1.0])
    stats = assert_same(relu_branch, [(pos, 2.0), (pos, 2.0), (pos, 2.0), (neg, 2.0), (pos, 2.0),
                                      (neg, 2.0), (pos, 2.0), (neg, 2.0)], jitted=jitted)
    graph_calls = stats.graph_calls
    stats = assert_same(relu_branch, [(neg, 2.0), (pos, 2.0), (neg, 2.0), (pos, 2.0)],
                        jitted=jitted)
    assert stats.graph_calls == graph_calls + 4


def tensor_break(x):
    total = tf.zeros([2])
    steps = 0
    for row in x:
        total = total + row
        steps += 1
        if tf.reduce_sum(total) > 5.0:
            break
    return total, steps


def test_for_over_tensor_rows_with_tensor_break():
    data = [arr(4, 2, seed=s) for s in range(4)]
    calls = [(c(d * 0.1),) for d in data] + [(c(np.full((4, 2), 2.0, np.float32)),),
                                             (c(data[0] * 0.1),)]
    stats = assert_same(tensor_break, calls, profile_calls=2)
    assert stats.graph_calls >= 2


def tensor_while(x):
    n = 0
    while tf.reduce_sum(x) < 10.0:
        x = x * 2.0
        n += 1
    return x, n


def test_while_with_tensor_condition_and_stable_trip_count():
    # 3 iterations every call
    calls = [(c([1.0, 1.0]),), (c([1.2, 1.0]),), (c([1.0, 1.1]),), (c([1.1, 1.1]),),
             (c([1.0, 1.0]),), (c([1.0, 1.2]),)]
    stats = assert_same(tensor_while, calls, profile_calls=2)
    assert stats.graph_calls == 4


def test_while_with_tensor_condition_whose_trip_count_changes_after_profiling():
    # profiled: 2 iterations; afterwards 3 iterations on every call
    two, three = c([1.5, 1.0]), c([1.0, 1.0])
    calls = [(two,), (two,)] + [(three,)] * 8
    stats = assert_same(tensor_while, calls, profile_calls=2)
    assert stats.graph_calls >= 1  # it must adapt to the new, stable trip count


def branch_with_nested_loop(x, n):
    y = x
    if tf.reduce_sum(x) > 0:
        for i in range(n):
            y = y * 0.5 + i
    else:
        y = -x
    return y


def test_tensor_if_containing_a_loop_flips_after_profiling():
    jitted = janus.jit(branch_with_nested_loop, profile_calls=2)
    pos, neg = c([1.0, 2.0]), c([-3.0, 1.0])
    stats = assert_same(branch_with_nested_loop, [(pos, 2), (pos, 2), (pos, 2), (neg, 2), (pos, 2),
                                                  (neg, 2), (pos, 2), (neg, 2)], jitted=jitted)
    graph_calls = stats.graph_calls
    stats = assert_same(branch_with_nested_loop, [(neg, 2), (pos, 2), (neg, 2), (pos, 2)],
                        jitted=jitted)
    assert stats.graph_calls == graph_calls + 4


def simple_flip(x):
    y = x
    if tf.reduce_sum(x) > 0:
        y = x * 3.0
    else:
        y = x - 1.0
    return y


def test_plain_tensor_if_flips_after_profiling_generalizes_to_cond():
    jitted = janus.jit(simple_flip, profile_calls=2)
    pos, neg = c([1.0, 2.0]), c([-3.0, 1.0])
    stats = assert_same(simple_flip, [(pos,), (pos,), (pos,), (neg,), (pos,), (neg,), (pos,),
                                      (neg,)], jitted=jitted)
    assert stats.fallback_reasons["guard failure"] >= 1
    graph_calls = stats.graph_calls
    stats = assert_same(simple_flip, [(neg,), (pos,), (neg,), (pos,)], jitted=jitted)
    assert stats.graph_calls == graph_calls + 4


# -- Keras, tf.Module, gradients, optimizers, variables ----------------------------------------

def make_dense():
    layer = tf.keras.layers.Dense(3, activation="tanh")
    layer.build((None, 4))
    layer.set_weights([arr(4, 3, seed=1), arr(3, seed=2)])
    return layer


def dense_call(layer, x):
    return tf.nn.relu(layer(x)) + tf.reduce_sum(layer.kernel)


def test_keras_dense_layer_call():
    calls = [(c(arr(2, 4, seed=i)),) for i in range(5)]
    stats = assert_same(dense_call, calls, make_state=make_dense, profile_calls=2)
    assert stats.graph_calls == 3


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(arr(3, 2, seed=3))
        self.b = tf.Variable(arr(2, seed=4))

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


def module_call(model, x):
    return tf.reduce_sum(model(x) ** 2)


def test_tf_module_call():
    calls = [(c(arr(2, 3, seed=i)),) for i in range(5)]
    stats = assert_same(module_call, calls, make_state=Affine, profile_calls=2)
    assert stats.graph_calls == 3


def tape_grads(model, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x) ** 2)
    grads = tape.gradient(loss, [model.w, model.b])
    return loss, grads


def test_gradient_tape_inside_function():
    calls = [(c(arr(2, 3, seed=i)),) for i in range(5)]
    stats = assert_same(tape_grads, calls, make_state=Affine, profile_calls=2)
    assert stats.graph_calls == 3


class Trainer:
    def __init__(self):
        self.model = Affine()
        self.optimizer = tf.keras.optimizers.SGD(0.1)
        self.steps = tf.Variable(0)


def train_step(state, x, y):
    model = state.model
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    variables = [model.w, model.b]
    grads = tape.gradient(loss, variables)
    state.optimizer.apply_gradients(zip(grads, variables))
    state.steps.assign_add(1)
    return loss


def test_optimizer_apply_gradients_updates_variables():
    calls = [(c(arr(4, 3, seed=i)), c(arr(4, 2, seed=i + 50))) for i in range(6)]
    stats = assert_same(train_step, calls, make_state=Trainer, profile_calls=2)
    assert stats.graph_calls == 4


class Vars:
    def __init__(self):
        self.v = tf.Variable([1.0, 2.0])
        self.count = tf.Variable(0.0)


def var_updates(state, x):
    before = state.v.read_value()
    state.v.assign(state.v * 0.5 + x)
    state.count.assign_add(1.0)
    state.v.assign_sub(tf.ones([2]) * 0.1)
    after = state.v + 0.0
    state.count.assign_add(tf.reduce_sum(after))
    return before, after, state.count.read_value()


def test_variable_assign_and_assign_add_inside_function():
    calls = [(c([float(i), 1.0]),) for i in range(6)]
    stats = assert_same(var_updates, calls, make_state=Vars, profile_calls=2)
    assert stats.graph_calls == 4


# -- print -------------------------------------------------------------------------------------

def printer(x, label):
    y = tf.reduce_sum(x)
    print("label", label, "sum", y)
    print(f"mean={tf.reduce_mean(x):.3f} y={y} label={label!r}")
    print(f"{x}", y, sep=" | ", end="!\n")
    print("max:", tf.reduce_max(x).numpy() if False else tf.reduce_max(x))
    return y


def test_print_with_tensors_and_fstrings():
    calls = [(c([float(i), 0.25]), "run") for i in range(5)]
    stats = assert_same(printer, calls, profile_calls=2)
    assert stats.graph_calls == 3


def print_in_loop(xs):
    total = tf.zeros([])
    for i, x in enumerate(xs):
        total = total + x
        print(f"step {i}: total={total:.2f}")
    return total


def test_print_inside_unrolled_loop():
    calls = [([c(float(i)), c(1.5), c(-0.5)],) for i in range(5)]
    stats = assert_same(print_in_loop, calls, profile_calls=2)
    assert stats.graph_calls == 3


# -- the RNN pattern: a list of tensors of varying length ----------------------------------------

class Cell:
    def __init__(self):
        self.w = tf.constant(arr(3, 4, seed=7) * 0.3)
        self.u = tf.constant(arr(4, 4, seed=8) * 0.3)
        self.h = tf.zeros([2, 4])


def rnn_cell(cell, state, x):
    return tf.tanh(x @ cell.w + state @ cell.u)


def rnn(cell, sequence):
    state = cell.h
    outputs = []
    for item in sequence:
        state = rnn_cell(cell, state, item)
        outputs += [state]
    cell.h = state
    return tf.reduce_mean(tf.stack(outputs) ** 2)


def _sequence(n, seed):
    return [c(arr(2, 3, seed=seed * 10 + k)) for k in range(n)]


def test_rnn_over_list_of_varying_length_profiled_lengths_differ():
    lengths = [2, 3, 4, 2, 5, 3, 1]
    calls = [(_sequence(n, i),) for i, n in enumerate(lengths)]
    stats = assert_same(rnn, calls, make_state=Cell, profile_calls=2)
    assert stats.graph_calls >= len(lengths) - 3


def test_rnn_over_list_whose_length_varies_only_after_profiling():
    lengths = [3, 3, 3, 4, 2, 5, 3, 6, 2, 4]
    calls = [(_sequence(n, i),) for i, n in enumerate(lengths)]
    jitted = janus.jit(rnn, profile_calls=2)
    stats = assert_same(rnn, calls, make_state=Cell, jitted=jitted)
    graph_calls = stats.graph_calls
    assert graph_calls >= 3
    more = [(_sequence(n, 20 + i),) for i, n in enumerate([7, 2, 3, 5])]
    stats = assert_same(rnn, more, make_state=Cell, jitted=jitted)
    assert stats.graph_calls == graph_calls + 4  # generalized: one graph fits every length


def rnn_outputs(cell, sequence):
    state = cell.h
    outputs = []
    for item in sequence:
        state = rnn_cell(cell, state, item)
        outputs.append(state)
    cell.h = state
    return outputs, tf.add_n(outputs)


def test_rnn_returning_list_of_outputs_of_varying_length():
    lengths = [2, 4, 3, 5, 2, 1]
    calls = [(_sequence(n, i),) for i, n in enumerate(lengths)]
    stats = assert_same(rnn_outputs, calls, make_state=Cell, profile_calls=2)
    assert stats.graph_calls >= 3
