"""Quick mode of the fuzzer (default test suite): QUICK_N generated programs, each run
plainly and under janus over QUICK_CALLS calls, compared after every call.

A seed listed in `tests/fuzz/known.py` diverges because of an open finding: it is a
strict xfail, so the test flips (XPASS, red) when the finding is fixed; then remove
the seed (`python -m tests.fuzz --quick-known` prints the current list).
"""
import pytest

from tests.fuzz import generator, known, runner

QUICK_N = 200
QUICK_CALLS = 8
QUICK_TIMEOUT = 40  # seconds per program (a hang is a divergence, not a stuck suite; a
# program making five graphs takes ~11 s on an idle machine, seed 137 at v66)
_TOTALS = {"programs": 0, "calls": 0, "graph_calls": 0}


def _param(seed):
    finding = known.QUICK.get(seed)
    marks = [pytest.mark.xfail(strict=True, reason=finding,
                               run=finding not in known.NOT_RUN)] if finding else []
    return pytest.param(seed, id=f"seed{seed}", marks=marks)


@pytest.mark.parametrize("seed", [_param(s) for s in range(QUICK_N)])
def test_program(seed):
    program = generator.generate(seed, n_calls=QUICK_CALLS)
    result = runner.run(program.source, program.calls, timeout=QUICK_TIMEOUT)
    _TOTALS["programs"] += 1
    _TOTALS["calls"] += result.stats["calls"]
    _TOTALS["graph_calls"] += result.stats["graph_calls"]
    assert result.divergence is None, \
        f"seed {seed}: {result.divergence}\n(repro: python -m tests.fuzz --n 1 --seed {seed} " \
        f"--calls {QUICK_CALLS})\n{program.source}"


def test_a_good_fraction_ran_as_graphs():
    """A fuzzer where janus always falls back proves little (runs after the programs).
    The share depends on the generator's mix of rules (v46: over 25%, v47: 24.6% of these 200
    programs' calls, most of the rest in programs using constructs janus runs eagerly;
    v76: 19.5% — the session-30 janus on v75's code made 20.7% of the same programs'
    calls graphs with five of them diverging; F314/F320's refusals run a few plainly;
    v77: 17.3%, 277 of 1600 — the session-31 start's janus made 269 of 1560 of the same
    programs' calls graphs with eight diverging: the new rules' programs, recursion and
    identity, run more of their calls plainly; v78: 20.9%, 334 of 1600 — the session-32
    start's janus made 307 of 1595 of the same programs' calls graphs with seed 82
    diverging); a janus that stopped making graphs would fall far below the floor."""
    if _TOTALS["programs"] < QUICK_N // 2:
        pytest.skip("run together with test_program")
    assert _TOTALS["graph_calls"] >= 0.16 * _TOTALS["calls"], _TOTALS


PLAIN_SEEDS = range(470012, 470024)  # (plain mode: runner._plain_mode; v77 moved 470000-
# 470011 to programs janus runs eagerly (try/except, .numpy(), add_loss): no plain turns)


def _plain_param(seed):
    finding = known.PLAIN.get(seed)
    marks = [pytest.mark.xfail(strict=True, reason=finding)] if finding else []
    return pytest.param(seed, id=str(seed), marks=marks)


@pytest.mark.parametrize("seed", [_plain_param(s) for s in PLAIN_SEEDS])
def test_program_in_plain_mode(seed, monkeypatch):
    """Graphs that lose their graph-or-plain trial: calls alternate between graph and
    plain runs, then run plainly (one in 3 checked); compared after every call."""
    monkeypatch.setenv("JANUS_FUZZ_PLAIN", "1")
    program = generator.generate(seed, n_calls=30)
    result = runner.run(program.source, program.calls, timeout=QUICK_TIMEOUT)
    assert result.divergence is None, \
        f"seed {seed}: {result.divergence}\n(repro: python -m tests.fuzz --plain --n 1 " \
        f"--seed {seed} --calls 30)\n{program.source}"
    _TOTALS["plain"] = _TOTALS.get("plain", 0) + result.stats["plain_calls"]


def test_the_plain_mode_ran_calls_plainly():
    if "plain" not in _TOTALS:
        pytest.skip("run together with test_program_in_plain_mode")
    assert _TOTALS["plain"] > 0, _TOTALS


OUTER_TAPE_SEEDS = range(480000, 480024)  # (outer-tape mode: runner.outer_tape)


@pytest.mark.parametrize("seed", OUTER_TAPE_SEEDS)
def test_program_under_a_caller_s_tape(seed, monkeypatch):
    """A quarter of these programs make every other call under the caller's tape: the
    gradients of their results are compared too (F147, F161: graphgen/caller_tape.py)."""
    monkeypatch.setenv("JANUS_FUZZ_OUTER_TAPE", "1")
    program = generator.generate(seed, n_calls=QUICK_CALLS)
    result = runner.run(program.source, program.calls, timeout=QUICK_TIMEOUT)
    assert result.divergence is None, \
        f"seed {seed}: {result.divergence}\n(repro: python -m tests.fuzz --outer-tape --n 1 " \
        f"--seed {seed} --calls {QUICK_CALLS})\n{program.source}"
