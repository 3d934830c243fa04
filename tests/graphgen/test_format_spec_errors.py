"""A format spec that fails on a tensor's value (F42: fuzz generator v20, seed 560298).
`print(f"{acc:.2f}")` raises TypeError in eager code when `acc` is not a scalar. In a
trace, formatting a symbolic tensor leaves a marker that the write-back replaces with
the value after the graph ran: the TypeError came from the write-back, an internal
error. Now the trace checks the spec on a sample of the tensor's rank and dtype and
refuses it when Python would raise: the call runs plainly and raises there."""
import contextlib
import io

import pytest
import tensorflow as tf

import janus


def _outcomes(fn, calls):
    outs = []
    for x in calls:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                out = fn(x).numpy().tolist()
            except Exception as exc:  # noqa: BLE001 - the exception is part of the outcome
                out = (type(exc).__name__, str(exc))
        outs.append((out, buf.getvalue()))
    return outs


@pytest.mark.parametrize("spec", [".2f", "d", "+.3e", ">8"])
@pytest.mark.parametrize("shape", [[], [2], [2, 1]])
def test_format_specs_on_tensors_as_in_eager_code(spec, shape):
    count = []

    def f(x):
        acc = x * 0.5
        count.append(1)
        print(f"{acc:{spec}}|{tf.reduce_sum(acc):.3f}")
        return acc
    calls = [tf.fill(shape, 1.5)] * 4 + [tf.fill(shape, 2.5)] * 2
    plain = _outcomes(f, calls)
    n_plain = len(count)
    jitted = _outcomes(janus.jit(f), calls)
    assert len(count) - n_plain == n_plain
    for a, b in zip(plain, jitted):
        assert a == b


def test_a_valid_spec_on_a_scalar_still_runs_as_a_graph():
    @janus.jit
    def f(x):
        loss = tf.reduce_sum(x * x)
        print(f"loss {loss:.3f}")
        return loss
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for _ in range(4):
            f(tf.constant([1.0, 2.0]))
    assert buf.getvalue() == "loss 5.000\n" * 4
    assert f.stats.graph_calls >= 1
