"""`import janus` and decorating functions initialize nothing in TensorFlow: a script can
still configure logical devices afterwards (tf.distribute needs that)."""
import os
import subprocess
import sys
import textwrap

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import tensorflow as tf
    import janus

    @janus.jit
    def double(x):
        return x * 2.0

    class Model:
        @janus.jit
        def step(self, x):
            return x + 1.0

    janus.jit(lambda x: x)
    janus.config.profile_calls = 2
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    assert len(tf.config.list_logical_devices("CPU")) == 2
    for _ in range(4):
        assert float(double(tf.constant(3.0))) == 6.0
        assert float(Model().step(tf.constant(3.0))) == 4.0
    assert janus.stats(double).graph_calls == 2
    print("ok")
""")


def test_import_and_decorate_leave_devices_configurable(tmp_path):
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JANUS_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")
    script = tmp_path / "configure_devices.py"  # a file: janus needs the source
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


MIRRORED = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    import janus

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


    def make():
        with strategy.scope():
            return tf.Variable(tf.ones([3, 1])), tf.keras.optimizers.SGD(0.1)


    def step(w, opt, x):  # replicas meet in apply_gradients (merge_call)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w]))
        return loss


    jitted = janus.jit(step)
    (w, opt), (w_ref, opt_ref) = make(), make()
    for i in range(5):
        x = tf.constant(np.random.default_rng(i).normal(size=(4, 3)), tf.float32)
        loss = strategy.reduce("SUM", strategy.run(jitted, args=(w, opt, x)), axis=None)
        ref = strategy.reduce("SUM", strategy.run(step, args=(w_ref, opt_ref, x)), axis=None)
        np.testing.assert_allclose(loss.numpy(), ref.numpy(), rtol=1e-5)
        np.testing.assert_allclose(w.numpy(), w_ref.numpy(), rtol=1e-5)
    assert janus.stats(jitted).calls == 10
    print("ok")
""")


def test_jitted_replica_step_under_mirrored_strategy_does_not_hang(tmp_path):
    """Issue 12: replica threads call the jitted step at once and meet in merge_call; with
    janus's lock held across the call this hung."""
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               JANUS_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="3")
    script = tmp_path / "mirrored.py"
    script.write_text(MIRRORED)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
