"""`global X` in a jitted function (transform/global_stores.py): a step counter, a list
rebound with `+=`, a tensor kept in a module global. It made the whole function run
eagerly; now the stores are deferred like any heap write (written back after the graph
ran, read back within the call). Each test compares janus with plain Python call by call,
the module's globals included."""
import tensorflow as tf

import janus
from janus.errors import ConversionError
from janus.transform import convert

STEP = 0
LOG = []
TOTAL = None


def step(x):
    global STEP, LOG, TOTAL
    STEP += 1
    LOG += [STEP]
    TOTAL = tf.reduce_sum(x) * STEP if TOTAL is None else TOTAL + tf.reduce_sum(x)
    if STEP % 3 == 0:
        STEP = STEP * 2
    return x * STEP, STEP


def _globals():
    return STEP, list(LOG), None if TOTAL is None else float(TOTAL)


def _run(fn, calls):
    global STEP, LOG, TOTAL
    STEP, LOG, TOTAL = 0, [], None
    out = []
    for x in calls:
        value, count = fn(x)
        out.append((value.numpy().tolist(), count, _globals()))
    return out


def test_globals_a_function_rebinds_are_written_back_after_each_graph():
    calls = [tf.constant([1.0, 2.0 + i]) for i in range(12)]
    jitted = janus.jit(step)
    assert _run(jitted, calls) == _run(step, calls)
    stats = janus.stats(jitted)
    assert stats.internal_errors == 0 and stats.graph_calls >= 4, stats


def failing(x):
    global STEP
    STEP += 1
    tf.debugging.assert_positive(x)  # (raises on the 4th call: nothing written back)
    return x * STEP


def test_a_global_is_not_written_when_the_call_raises():
    global STEP
    for fn in (failing, janus.jit(failing)):
        STEP, seen = 0, []
        for v in (1.0, 2.0, 3.0, -1.0, 5.0, 6.0):
            try:
                fn(tf.constant([v]))
            except tf.errors.InvalidArgumentError:
                seen.append("raised")
            seen.append(STEP)
        if fn is failing:
            expected = seen
    assert seen == expected, (seen, expected)


def test_other_bindings_of_a_declared_global_stay_refused():
    def unpacked(x):
        global STEP, LOG
        STEP, LOG = 1, []
        return x

    def looped(x):
        global STEP
        for STEP in range(3):
            pass
        return x

    for fn in (unpacked, looped):
        try:
            convert(fn)
        except ConversionError as error:
            assert "rebinds a global" in str(error)
        else:
            raise AssertionError(f"{fn.__name__} converted")


def _scaled(x):
    return x * STEP  # (reads the global its caller rebound earlier in the call)


def step_then_helper(x):
    global STEP
    STEP += 1
    return _scaled(x) + tf.reduce_sum(x)


def test_a_callee_reads_the_global_its_caller_stored_in_the_same_call():
    global STEP
    calls = [tf.constant([1.0, 2.0 + i]) for i in range(10)]
    results = {}
    for name, fn in (("plain", step_then_helper), ("janus", janus.jit(step_then_helper))):
        STEP = 0
        results[name] = [(fn(x).numpy().tolist(), STEP) for x in calls]
    assert results["janus"] == results["plain"]
