"""A generation racing other threads' calls: what they learned meanwhile is kept."""
import dataclasses

import tensorflow as tf

import janus
from janus import generation


def scale(x, n):
    return x * n


def test_a_plan_generalized_during_a_trace_is_not_undone(monkeypatch):
    """Another thread's guard failure generalizes the plan while this thread traces under
    the older one; the trace's plan must not replace the newer plan (it did: 8 threads
    lost a fed counter that way and kept tracing graphs for one value each)."""
    jitted = janus.jit(scale, profile_calls=1)
    traced = generation.generate
    wider = []

    def racing_generate(ident, converted, plan, *rest):
        # what another thread's failed guard does mid-trace (under the lock)
        newer = dataclasses.replace(plan, scalars=plan.scalars | {"args[1]"})
        with jitted._lock:
            jitted._generalize(newer)
        wider.append(newer)
        return traced(ident, converted, plan, *rest)

    monkeypatch.setattr(generation, "generate", racing_generate)
    x = tf.constant([1.0, 2.0])
    for n in (3, 3):
        assert (jitted(x, n).numpy() == scale(x, n).numpy()).all()
    assert wider and jitted.plan == wider[0]
    assert janus.stats(jitted).generations == 1
