"""janus runs its graphs without Grappler's remapper, arithmetic optimizer and constant
folding (graphgen/calls.eager_kernels): fused, a `MatMul`, its bias and a tanh round
otherwise than the three ops eager code runs (every output of the layer below differed in
some bit); the arithmetic optimizer's rewrites changed a loop's gradient in the last bit;
constant folding made `x / 5` a product. Compared with plain eager, bit for bit."""
import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
from tensorflow.python.eager import context

import janus
from janus.graphgen import calls
from tests.differential import assert_same

W = tf.constant(np.random.RandomState(153).normal(size=(8, 32)), tf.float32)
B = tf.constant(np.random.RandomState(154).normal(size=32), tf.float32)


def layer(x):
    u = tf.reshape(tf.tile(x[:1], [8]), [1, 8]) * tf.constant(np.linspace(0.3, 1.7, 8),
                                                              tf.float32) + 0.1
    return tf.tanh(tf.matmul(u, W) + B)


def test_a_dense_layer_computes_eager_s_bits():
    inputs = [tf.constant(np.random.RandomState(i).normal(size=2), tf.float32)
              for i in range(20)]
    stats = assert_same(layer, [(x,) for x in inputs])  # (within the tolerance)
    jitted = janus.jit(layer)
    same = [np.array_equal(layer(x).numpy(), jitted(x).numpy()) for x in inputs]
    assert janus.stats(jitted).graph_calls >= 15 and stats.graph_calls >= 15
    assert all(same), f"{same.count(False)} of {len(same)} calls differ from eager"


def test_the_caller_s_options_stay_as_they_were():
    """Only the remapper, the arithmetic optimizer and constant folding are off in the
    graph's call, and the thread's options are the
    caller's again after it (other Grappler settings kept)."""
    ctx = context.context()
    before = ctx.function_call_options
    jitted = janus.jit(layer)
    for i in range(6):
        jitted(tf.constant([0.5 * i, 1.0]))
    assert ctx.function_call_options is before
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = \
        rewriter_config_pb2.RewriterConfig.OFF
    options = context.FunctionCallOptions(config_proto=config)
    derived = config_pb2.ConfigProto.FromString(
        calls.eager_kernels(options).config_proto_serialized)
    rewrites = derived.graph_options.rewrite_options
    assert rewrites.remapping == rewriter_config_pb2.RewriterConfig.OFF
    assert rewrites.arithmetic_optimization == rewriter_config_pb2.RewriterConfig.OFF
    assert rewrites.constant_folding == rewriter_config_pb2.RewriterConfig.OFF
    assert rewrites.dependency_optimization == rewriter_config_pb2.RewriterConfig.OFF
    assert calls.eager_kernels(options) is calls.eager_kernels(options)  # (made once)


V = tf.Variable(0.5)


def unrolled(xs, h):
    with tf.GradientTape() as tape:
        for x in xs:
            h = h * V + x
    return h, tape.gradient(h, V)


def test_a_loop_s_gradient_computes_eager_s_bits():
    """Four and six steps of `h * w + x`: the arithmetic optimizer's graph gave d h / d w
    2.9 where eager gives 2.8999999 (and 3.61875 for 3.6187503)."""
    one = tf.constant(1.0)
    calls = [([one] * n, tf.constant(0.3)) for n in (4, 4, 6, 6, 4, 6, 4, 6)]
    jitted = janus.jit(unrolled)
    same = [all(np.array_equal(a.numpy(), b.numpy()) for a, b in
                zip(unrolled(*args), jitted(*args))) for args in calls]
    assert janus.stats(jitted).graph_calls >= 4
    assert all(same), f"{same.count(False)} of {len(same)} calls differ from eager"


class Conv:
    def __init__(self):
        rng = np.random.RandomState(7)
        self.kernel = tf.Variable(rng.normal(size=(5, 5, 3, 16)).astype(np.float32) * 0.1)
        self.bias = tf.Variable(rng.normal(size=16).astype(np.float32) * 0.1)


def conv_step(m, images):
    with tf.GradientTape() as tape:
        y = tf.nn.bias_add(tf.nn.conv2d(images, m.kernel, 1, "SAME"), m.bias)
        loss = tf.reduce_mean(tf.square(tf.nn.relu(y) - 0.5))
    grads = tape.gradient(loss, [m.kernel, m.bias])
    m.kernel.assign_sub(grads[0] * 0.1)
    m.bias.assign_sub(grads[1] * 0.1)
    return loss


def test_a_conv_bias_s_gradient_computes_eager_s_bits():
    """oneDNN fuses a conv's filter gradient and its bias's gradient into one kernel in a
    graph, summing the bias's gradient in another order (graphgen/bias_gradients.py)."""
    plain, jitted_state, jitted = Conv(), Conv(), janus.jit(conv_step)
    for i in range(6):
        images = tf.constant(np.random.RandomState(i).normal(size=(8, 12, 12, 3)), tf.float32)
        expected, got = conv_step(plain, images), jitted(jitted_state, images)
        assert np.array_equal(expected.numpy(), got.numpy()), i
        assert np.array_equal(plain.bias.numpy(), jitted_state.bias.numpy()), i
        assert np.array_equal(plain.kernel.numpy(), jitted_state.kernel.numpy()), i
    assert janus.stats(jitted).graph_calls >= 3


def divide(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_mean(tf.sin(x), axis=1) / 5.0
    return y, tape.gradient(y, x)


def test_a_division_by_a_constant_computes_eager_s_bits():
    """Constant folding made `y / 5` (and `reduce_mean`'s gradient over 7 columns, a
    division by the count) a product with the reciprocal (F143)."""
    inputs = [tf.constant(np.random.RandomState(i).normal(size=(300, 7)), tf.float32)
              for i in range(6)]
    jitted = janus.jit(divide)
    same = [all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(divide(x), jitted(x)))
            for x in inputs]
    assert janus.stats(jitted).graph_calls >= 3
    assert all(same), f"{same.count(False)} of {len(same)} calls differ from eager"
