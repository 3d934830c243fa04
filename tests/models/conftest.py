"""Fixtures for the model tests: repo root importable, TF quiet, eager-vs-expert helper."""
from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
import pytest  # noqa: E402


def run_pair(workload, n_steps: int):
    """Run eager and expert from identical states on identical batches.

    Returns (eager losses, expert losses, eager state, expert state).
    """
    from models.common import to_float

    batches = workload.batches(n_steps)
    eager_state, expert_state = workload.make_state(), workload.make_state()
    expert = workload.expert(expert_state)
    eager_losses, expert_losses = [], []
    for batch in batches:
        eager_losses.append(to_float(workload.step(eager_state, *batch)))
        expert_losses.append(to_float(expert(*batch)))
    return eager_losses, expert_losses, eager_state, expert_state


def assert_same_variables(workload, state_a, state_b, atol: float) -> None:
    for a, b in zip(workload.variables(state_a), workload.variables(state_b), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=atol, rtol=0)


@pytest.fixture
def expert_matches_eager():
    """check(workload, n_steps, atol): expert losses and final variables equal eager's."""
    def check(workload, n_steps: int = 3, atol: float = 1e-5):
        eager, expert, s1, s2 = run_pair(workload, n_steps)
        assert all(np.isfinite(eager)), eager
        np.testing.assert_allclose(expert, eager, atol=atol, rtol=0)
        assert_same_variables(workload, s1, s2, atol=max(atol, 1e-5))
        return eager, s1, s2
    return check


@pytest.fixture
def janus_matches_eager():
    """check(workload, n_steps, host_state=None, **jit_options): janus.jit(step) equals the
    plain step after every call -- result, stdout, exceptions and the whole heap reachable
    from the state and the arguments (variables, optimizer slots, lists, attributes; see
    tests/differential.py) -- and ``host_state(state)`` (what the heap snapshot cannot see,
    e.g. numpy RNG states) is equal too. Returns the janus stats."""
    def check(workload, n_steps: int, host_state=None, **options):
        from tests.differential import assert_same

        return assert_same(workload.step, workload.batches(n_steps), workload.make_state,
                           observe=host_state, **options)
    return check
