"""A jitted function called in a child `fork`ed after TensorFlow ran (a multiprocessing
Pool with the fork start method) runs plainly there (janus/forks.py, F374): TensorFlow's
graphs wait forever in such a child (its runtime threads are not copied), eager ops work.
Before, the child hung in `ConcreteFunction._call_flat`. Each child compares janus with
plain Python (tests/differential.assert_same) for a function jitted and warmed in the
parent and for one jitted in the child; a timeout turns a hang into a failure."""
import multiprocessing
import warnings

import pytest
import tensorflow as tf

import janus
from janus import forks
from janus.cache import recorder
from tests.differential import assert_same

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="no fork on this platform")


class State:
    def __init__(self):
        self.w = tf.Variable(tf.ones([3]))
        self.seen = []


def step(s, x, k):
    y = tf.reduce_sum(x * s.w) * k
    s.w.assign(s.w * 0.9 + 0.1 * x)
    s.seen.append(k)
    return y


CALLS = [(tf.constant([1.0, 2.0, float(i)]), float(1 + i % 2)) for i in range(6)]
WARM = janus.jit(step)


def _in_child(_):
    """Runs in the forked child: the warmed function and a new one, compared with plain."""
    try:
        before = janus.stats(WARM).graph_calls
        assert_same(step, CALLS, State, jitted=WARM)
        assert janus.stats(WARM).graph_calls == before
        assert forks.REASON in WARM.last_decision, WARM.last_decision
        made_here = assert_same(step, CALLS, State)
        assert made_here.graph_calls == 0 and made_here.generations == 0, made_here
        recorder.flush()  # (writes nothing from the child: no thread started either)
        assert recorder._thread is None
        return "ok"
    except BaseException as exc:  # (reported to the parent: pytest runs there)
        return f"{type(exc).__name__}: {exc}"


def test_jitted_functions_run_plainly_in_a_forked_child():
    state = State()
    for x, k in CALLS:
        WARM(state, x, k)
    assert janus.stats(WARM).graph_calls >= 3  # (TF ran here: graphs too)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (fork of a threaded process)
        with multiprocessing.get_context("fork").Pool(1) as pool:
            outcome = pool.map_async(_in_child, [0]).get(60)
    assert outcome == ["ok"]
    assert not forks.forked_after_tensorflow
    assert janus.stats(WARM).graph_calls >= 3
