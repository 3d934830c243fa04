"""Programs nobody here wrote (tests/e2e/unseen/): each runs plainly and under janus.jit
on fresh states with the same inputs; results, printed text, exceptions, variables and
Python state agree after every call, and the programs janus can run as graphs (`GRAPHS`)
ran graphs (`MIN_GRAPH_CALLS` of them, where a fix made them graphs)."""
import importlib
import pkgutil

import pytest

from tests.differential import assert_same
from tests.e2e import unseen

PROGRAMS = sorted(m.name for m in pkgutil.iter_modules(unseen.__path__) if m.name.startswith("p"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_unseen_program_runs_as_plain_python(name):
    program = importlib.import_module(f"tests.e2e.unseen.{name}")
    stats = assert_same(program.step, program.calls(), program.make_state,
                        observe=getattr(program, "observe", None))
    if program.GRAPHS:
        least = getattr(program, "MIN_GRAPH_CALLS", 1)
        assert stats.graph_calls >= least, f"{name}: {stats.graph_calls} graph calls ({stats})"
