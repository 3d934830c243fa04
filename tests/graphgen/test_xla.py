"""XLA (opt-in) is tried per stable static-shape specialization, compiled in the
background while the plain graph serves, and kept only where it is faster; results stay
those of plain Python either way."""
import contextlib
import threading

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.eager import context

import janus
from janus.graphgen import xla, xla_trial


@pytest.fixture(autouse=True)
def tiny_graphs_count(monkeypatch):
    """XLA on (it is opt-in); these tests' graphs are tiny: XLA is tried on them all the
    same."""
    monkeypatch.setattr(janus.config, "xla", True)
    monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 0.0)


def cell(w, h, x):
    for _ in range(4):
        h = tf.tanh(tf.matmul(h, w) + x)
    return tf.reduce_sum(h)


def _calls_until_decided(jitted, fn, make_args, limit=200):
    """Call until the first specialization's XLA decision is made; compare every call."""
    for i in range(limit):
        args = make_args(i)
        np.testing.assert_allclose(jitted(*args).numpy(), fn(*args).numpy(), rtol=1e-5)
        spec = jitted.specializations[0] if jitted.specializations else None
        if spec is not None and spec.xla.startswith("compiling"):
            assert xla.compiler.wait_idle(120)
        if spec is not None and spec.xla.startswith(("on", "off")):
            return spec
    raise AssertionError(f"no XLA decision after {limit} calls: {spec.xla!r}")


def test_xla_is_opt_in(monkeypatch):
    """Off by default (its rounding is not TensorFlow's): no compile, no trial."""
    monkeypatch.delenv("JANUS_XLA", raising=False)
    assert not janus.Config().xla
    monkeypatch.setattr(janus.config, "xla", False)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(xla.MIN_CALLS + 2 * xla_trial.ROUNDS + 4):
        h, x = tf.ones([2, 8]) * i, tf.ones([2, 8])
        np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)
    assert jitted.specializations and janus.stats(jitted).graph_calls > 0
    spec = jitted.specializations[0]
    assert spec.trial is None and spec.accelerated is None and not spec.xla.startswith("on")


def test_xla_when_on_decides_and_results_stay_equal():
    assert janus.config.xla
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    spec = _calls_until_decided(jitted, cell, lambda i: (w, tf.ones([2, 8]) * i, tf.ones([2, 8])))
    assert spec.trial is None and "xla:" in spec.describe()
    assert spec.xla.startswith("on") == (spec.accelerated is not None)
    for i in range(3):  # and after the decision
        h, x = tf.ones([2, 8]) * i, tf.ones([2, 8])
        np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)


def _call_until_decided(jitted, w, decision: str):
    """Call (comparing with eager) until the XLA decision starts with `decision`."""
    spec = None
    for i in range(60):
        _call_and_compare(jitted, w, i)
        assert xla.compiler.wait_idle(120)
        spec = jitted.specializations[0] if jitted.specializations else None
        if spec is not None and spec.xla.startswith(decision):
            break
    return spec


class Trainer:
    def __init__(self):
        self.w = tf.Variable(np.full((8, 8), 0.05, np.float32))
        self.steps = 0

    def step(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.tanh(tf.matmul(x, self.w)) ** 2)
        self.w.assign_sub(0.01 * tape.gradient(loss, self.w))
        self.last = loss
        return loss


def test_compiling_in_the_background_never_touches_the_real_variables():
    """The compile run uses copies of the variables: after the decision, plain Python
    and janus have made exactly the same updates."""
    plain, jitted_model = Trainer(), Trainer()
    jitted = janus.jit(Trainer.step)
    for i in range(xla.MIN_CALLS + 2 * xla_trial.ROUNDS + 8):
        x = tf.ones([2, 8]) * (i % 3)
        np.testing.assert_allclose(jitted(jitted_model, x).numpy(), plain.step(x).numpy(),
                                   rtol=1e-5)
        if i == xla.MIN_CALLS + 1:
            assert xla.compiler.wait_idle(120)
        np.testing.assert_allclose(jitted_model.w.numpy(), plain.w.numpy(), rtol=1e-5)
    np.testing.assert_allclose(jitted_model.last.numpy(), plain.last.numpy(), rtol=1e-5)
    assert jitted.specializations[0].xla.startswith(("on", "off", "measuring"))


def test_random_ops_are_not_compiled():
    def noisy(x):  # (unseeded: a seeded draw is refused in graphs, graphgen/random_draws.py)
        return tf.reduce_sum(x + tf.random.uniform([2, 8]))
    from tensorflow.python.eager import context
    saved = context.global_seed()
    tf.random.set_seed(None)
    try:
        jitted = janus.jit(noisy)
        for _ in range(xla.MIN_CALLS + 3):
            jitted(tf.ones([2, 8]))
            assert xla.compiler.wait_idle(120)
    finally:
        tf.random.set_seed(saved)
    spec = jitted.specializations[0]
    assert spec.xla.startswith("off (not tried") and "Random" in spec.xla


@pytest.mark.parametrize("setting", ["config off", "graph too quick to gain"])
def test_not_tried(monkeypatch, setting):
    if setting == "config off":
        monkeypatch.setattr(janus.config, "xla", False)
    else:
        monkeypatch.setattr(xla, "MIN_GRAPH_SECONDS", 10.0)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(xla.MIN_CALLS + 5):
        h, x = tf.ones([2, 8]) * i, tf.ones([2, 8])
        np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)
    assert jitted.specializations and jitted.stats.graph_calls >= xla.MIN_CALLS
    assert all(spec.xla == "" and spec.trial is None for spec in jitted.specializations)


def test_dynamic_shapes_are_not_tried():
    jitted = janus.jit(cell)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    for n in list(range(1, 10)) + [9] * xla.MIN_CALLS:
        h = tf.ones([n, 8])
        np.testing.assert_allclose(jitted(w, h, h).numpy(), cell(w, h, h).numpy(), rtol=1e-5)
    dynamic = [spec for spec in jitted.specializations
               if any(d is None for _, _, (_, shape) in spec.inputs for d in shape)]
    assert dynamic and all(spec.xla == "" and spec.trial is None for spec in dynamic)


def _compiled_under(monkeypatch, caller: str | None, make_model):
    """Run Trainer.step (under the caller's `tf.device(caller)`, or none) until its XLA
    variant compiled, comparing with plain Python; (the devices its compile run was
    placed on, the devices the compiler thread entered)."""
    real_device, entered, placed = tf.device, [], []

    def device(name):
        if threading.current_thread().name == "janus-xla":
            entered.append(name)
        return real_device(name)

    class Recorded(xla.XlaVariant):
        def compile(self, sample_inputs):
            concrete = self.concrete

            class Placed:  # (the eager context's device where the compile run is made)
                def _call_flat(self, *args):
                    placed.append(context.context().device_name)
                    return concrete._call_flat(*args)

            self.concrete = Placed()
            try:
                super().compile(sample_inputs)
            finally:
                self.concrete = concrete

    monkeypatch.setattr(tf, "device", device)
    monkeypatch.setattr(xla, "XlaVariant", Recorded)
    plain, model = make_model(), make_model()
    jitted = janus.jit(Trainer.step)
    for i in range(janus.config.profile_calls + xla.MIN_CALLS + 4):
        x = tf.ones([2, 8]) * (i % 3)
        with real_device(caller) if caller else contextlib.nullcontext():
            got = jitted(model, x)
        np.testing.assert_allclose(got.numpy(), plain.step(x).numpy(), rtol=1e-5)
        np.testing.assert_allclose(model.w.numpy(), plain.w.numpy(), rtol=1e-5)
        assert xla.compiler.wait_idle(120)
    assert placed, jitted.specializations[0].xla
    return placed, entered


def test_xla_variant_is_built_and_compiled_on_the_callers_device(monkeypatch):
    """F375: a step the caller runs under `tf.device("/cpu:0")` (guarded:
    graphgen/caller_scopes.py) has its XLA variant traced and compiled there, not where
    the compiler thread's empty scope puts it (the default GPU on a GPU machine); the
    variables' copies it compiles on are made on their variables' devices."""
    with tf.device("/cpu:0"):
        caller = context.context().device_name
    placed, entered = _compiled_under(monkeypatch, "/cpu:0", Trainer)
    assert placed == [caller]
    assert entered == [caller, caller], entered  # (the variable's copy, the compile run)


def test_xla_variant_without_a_caller_scope_enters_none(monkeypatch):
    placed, entered = _compiled_under(monkeypatch, None, Trainer)
    assert placed == [""]
    assert len(entered) == 1, entered  # (only the variable's copy, on its device)


@pytest.mark.skipif(not tf.config.list_logical_devices("GPU"), reason="needs a GPU")
def test_xla_on_a_gpu_machine_keeps_the_callers_cpu(monkeypatch):
    def on_cpu():
        with tf.device("/cpu:0"):
            return Trainer()
    placed, entered = _compiled_under(monkeypatch, "/cpu:0", on_cpu)
    assert all("CPU" in device for device in placed), placed
    assert all("GPU" not in str(device) for device in entered), entered


@pytest.mark.parametrize("when", ["on trial", "kept"])
def test_a_failing_xla_call_falls_back_to_the_plain_graph(monkeypatch, when):
    """The failing XLA call reruns on the plain graph (nothing was written), and XLA
    stays off for the specialization."""
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    for i in range(janus.config.profile_calls + xla.MIN_CALLS):
        jitted(w, tf.ones([2, 8]) * i, tf.ones([2, 8]))
    assert xla.compiler.wait_idle(120)
    spec = jitted.specializations[0]
    assert spec.trial is not None, spec.xla
    if when == "kept":
        spec.accelerated, spec.trial, spec.xla = spec.trial.variant, None, "on (forced)"

    def broken(self, inputs):
        raise tf.errors.InternalError(None, None, "injected XLA failure")
    monkeypatch.setattr(xla.XlaVariant, "call", broken)
    for i in range(2):
        h, x = tf.ones([2, 8]) * (3 + i), tf.ones([2, 8])
        np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)
        assert spec.xla.startswith("off (failed: InternalError")
        assert spec.trial is None and spec.accelerated is None


def test_which_ops_keep_a_graph_from_xla(monkeypatch):
    monkeypatch.setattr(xla, "_ops", lambda concrete: concrete)
    assert xla.unsafe_ops({"StatefulPartitionedCall", "PartitionedCall", "MatMul"}) == []
    assert xla.unsafe_ops({"StatefulUniform", "RandomStandardNormal", "Assert", "PrintV2",
                           "MatMul"}) == ["Assert", "PrintV2", "RandomStandardNormal",
                                          "StatefulUniform"]


def _fake_timings(monkeypatch, clock: dict):
    """Graph calls 'take' clock["xla"] or clock["plain"] seconds, whichever variant ran
    (the decision logic sees these instead of measured times: no timed test); a list
    is a sequence of times, its last one repeating."""
    real = xla_trial.after_call

    def seconds(kind):
        value = clock[kind]
        return (value.pop(0) if len(value) > 1 else value[0]) if isinstance(value, list) \
            else value
    monkeypatch.setattr(xla_trial, "after_call", lambda spec, trial, used_xla, _: real(
        spec, trial, used_xla, seconds("xla" if used_xla else "plain")))


def _call_and_compare(jitted, w, i):
    h, x = tf.ones([2, 8]) * (i % 5), tf.ones([2, 8])
    np.testing.assert_allclose(jitted(w, h, x).numpy(), cell(w, h, x).numpy(), rtol=1e-5)


@pytest.mark.parametrize("xla_seconds", [0.010, 0.0102, 0.012,
                                         [0.012, 0.012, 0.005, 0.012]])  # one lucky call
def test_xla_not_clearly_faster_is_never_kept(monkeypatch, xla_seconds):
    _fake_timings(monkeypatch, {"xla": xla_seconds, "plain": 0.010})
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    spec = _call_until_decided(jitted, w, "off")
    assert spec.xla.startswith("off (XLA was") and spec.accelerated is None, spec.xla
    for i in range(10):  # decided for good: no new trial
        _call_and_compare(jitted, w, i)
    assert spec.trial is None and spec.accelerated is None


def test_a_kept_variant_later_measured_slower_is_turned_off_loudly(monkeypatch):
    clock = {"xla": 0.005, "plain": 0.010}
    _fake_timings(monkeypatch, clock)
    w = tf.constant(np.full((8, 8), 0.05, np.float32))
    jitted = janus.jit(cell)
    spec = _call_until_decided(jitted, w, "on")
    assert spec.xla.startswith("on (2.00x faster") and spec.accelerated is not None, spec.xla
    clock["xla"] = 0.020  # the machine changed: XLA is now slower
    with pytest.warns(janus.JanusWarning, match="XLA turned off"):
        for i in range(xla_trial.WATCH + 2 + 2 * xla_trial.EARLY_ROUNDS):
            _call_and_compare(jitted, w, i)
    assert spec.accelerated is None and spec.trial is None
    assert spec.xla.startswith("off (XLA was 0.50x") and "turned off" in spec.xla
    for i in range(xla_trial.RECHECK_AFTER // 20):  # off for good, results unchanged
        _call_and_compare(jitted, w, i)
    assert spec.accelerated is None and spec.trial is None


EXIT_PROGRAM = '''
import sys, threading, time
import numpy as np
import tensorflow as tf
import janus
from janus.graphgen import xla

xla.MIN_GRAPH_SECONDS = 0.0
compile_variant = xla.XlaVariant.compile
running = threading.Event()

def slow_compile(self, inputs):  # a compilation longer than the former 10 s exit wait
    running.set()
    time.sleep(12)
    compile_variant(self, inputs)
    open(sys.argv[1], "w").write("compiled")

xla.XlaVariant.compile = slow_compile

def cell(w, h):
    return tf.reduce_sum(tf.tanh(tf.matmul(h, w)))

jitted, w = janus.jit(cell), tf.constant(np.full((4, 4), 0.1, np.float32))
for i in range(xla.MIN_CALLS + 3):
    jitted(w, tf.ones([2, 4]) * i)
assert jitted.specializations[0].xla.startswith("compiling")
assert running.wait(120)   # (a compilation still queued at exit is dropped, not waited for)
'''


@pytest.mark.slow  # (over 10 s: `./scripts/test.sh -m slow`)
def test_a_process_exiting_while_xla_compiles_waits_for_it(tmp_path):
    """Exiting under a running compilation crashed the process (SIGSEGV/SIGABRT from
    LLVM torn down under the compiler thread) once it took more than 10 s: exit now
    waits for it (xla.EXIT_WAIT)."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    marker, program = tmp_path / "compiled", tmp_path / "exit_program.py"
    program.write_text(EXIT_PROGRAM)   # (janus converts functions it has the source of)
    env = dict(os.environ, PYTHONPATH=root, TF_CPP_MIN_LOG_LEVEL="3", JANUS_CACHE="0",
               JANUS_XLA="1")  # (XLA is opt-in)
    done = subprocess.run([sys.executable, str(program), str(marker)], env=env,
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert marker.exists()   # the compilation finished before the process did
