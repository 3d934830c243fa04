"""A user's `finally` that fails while a refused trace unwinds does not make the refusal a
janus bug (fuzz v17, seed 495024: F33, the regression program in tests/fuzz/regressions)."""
from janus.errors import ConversionError
from janus.fallback import safety


def _failing_finally():
    try:
        raise ConversionError("a heap write in a generalized branch")
    finally:
        raise RuntimeError("the finally block read a value of the refused branch")


def test_an_error_raised_while_a_refusal_unwinds_is_the_refusal():
    try:
        _failing_finally()
    except RuntimeError as exc:
        refusal = safety.unwound_refusal(exc)
    assert isinstance(refusal, ConversionError) and "generalized branch" in str(refusal)
    assert safety.unwound_refusal(RuntimeError("no refusal")) is None
    assert safety.unwound_refusal(ConversionError("itself")) is None
