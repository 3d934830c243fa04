"""Which names a stretch of statements reads (janus/transform/liveness.py): a
comprehension's or a lambda's own variables are not reads of the enclosing scope (they
made every statement after a list comprehension "read a name that may be unbound" and
stopped segment splitting there), the names around them are."""
import textwrap

import gast

from janus.transform import liveness


def _reads(code: str) -> set:
    return liveness.reads(gast.parse(textwrap.dedent(code)).body)


def test_a_comprehension_reads_its_iterable_and_outer_names_not_its_own_variable():
    assert _reads("ys = [t * m for t in xs]") == {"m", "xs"}
    assert _reads("d = {k: v + m for k, v in pairs if k != skip}") == {"m", "pairs", "skip"}
    assert _reads("s = sum(a * b for a in xs for b in range(a))") == {"sum", "xs", "range"}
    assert _reads("ys = [[t * u for u in row] for row in rows for t in row]") == {"rows"}


def test_the_first_iterable_is_read_outside_even_if_it_shares_the_variable_name():
    assert _reads("t = [t for t in t]") == {"t"}


def test_a_lambda_reads_its_defaults_and_free_names_not_its_parameters():
    assert _reads("f = lambda x, y=d: x + y + z") == {"d", "z"}


def test_names_read_inside_and_after_are_still_reads():
    assert _reads("ys = [t for t in xs]\nz = t") == {"xs", "t"}
    assert _reads("x += 1") == {"x"}
    assert _reads("del x") == {"x"}
