"""The zoo (tests/fuzz/zoo/p*.py): realistic eager TF 2 training and inference steps, each
run plainly and under janus over its calls and compared after every call
(`harness.run`). The whole zoo takes over a minute: marked slow; one small program
runs in the default suite."""
import pytest

from tests.fuzz.zoo import harness

QUICK = ("p07_attention_mask",)


def _check(name: str) -> None:
    result, _ = harness.run(name)
    assert result.divergence is None, f"{name}: {result.divergence}"


@pytest.mark.parametrize("name", QUICK)
def test_quick_program(name):
    _check(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in harness.programs() if n not in QUICK])
def test_program(name):
    _check(name)
