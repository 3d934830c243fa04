"""Sources are a grammar: validated paths, walked without eval; the code janus generates
from them (guards, feeds, the recursion node visitor) holds only checked parts."""
from __future__ import annotations

import sys
import types

import pytest

from janus.graphgen import sources
from janus.graphgen.sources import Source, SourceError, evaluate, from_record

PWN = "__import__('os').system('touch /tmp/PWNED_x')"


class Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def test_sources_render_the_familiar_text_and_compare_by_it():
    s = sources.arg(0).attr("state").item(1).item("k").item((1, "a")).item(-2).item(None)
    assert s.expr == "args[0].state[1]['k'][(1, 'a')][-2][None]"
    assert str(s) == s.expr
    assert sources.kwarg("lr").expr == "kwargs['lr']"
    assert sources.global_("W").expr == "G['W']"
    assert sources.global_("tf", "models.rnn").expr == "MOD['models.rnn']['tf']"
    assert sources.closure(1).attr("x").expr == "C[1].cell_contents.x"
    assert sources.table("T.f", "roots").expr == "<table T.f roots>"
    assert s == Source(s.root, s.steps) and hash(s) == hash(Source(s.root, s.steps))
    # keys that are equal in Python but are other paths stay apart
    assert sources.arg(0).item(1) != sources.arg(0).item(True)
    assert sources.arg(0).item(1) != sources.arg(0).item(1.0)
    assert len({sources.arg(0).item(1), sources.arg(0).item(True)}) == 2


def test_sources_are_immutable():
    s = sources.arg(0).attr("x")
    with pytest.raises(AttributeError):
        s.expr = PWN
    with pytest.raises(AttributeError):
        s.steps = ()


@pytest.mark.parametrize("make", [
    lambda: sources.arg(0).attr(PWN),
    lambda: sources.arg(0).attr("x or y"),
    lambda: sources.arg(0).attr("class"),            # a keyword
    lambda: sources.arg(0).attr("ﬁ"),                # not NFKC-normal: would read `fi`
    lambda: sources.arg(0).attr(1),
    lambda: sources.arg(0).item(object()),
    lambda: sources.arg(0).item(float("nan")),
    lambda: sources.arg(0).item(((1, [2]),)),
    lambda: sources.arg(0).item(types.SimpleNamespace()),
    lambda: sources.arg(-1),
    lambda: sources.arg("0]; " + PWN + "; args[0"),
    lambda: sources.kwarg(3),
    lambda: sources.global_(("x",)),
    lambda: Source(("eval", PWN)),
    lambda: Source("args[0]"),
])
def test_anything_outside_the_grammar_is_refused(make):
    with pytest.raises((SourceError, TypeError)):
        make()


def test_str_subclasses_with_their_own_repr_are_not_keys():
    class Sneaky(str):
        def __repr__(self):
            return PWN
    with pytest.raises(SourceError):
        sources.arg(0).item(Sneaky("k"))
    with pytest.raises(SourceError):
        sources.kwarg(Sneaky("k"))


def test_evaluate_walks_the_path():
    inner = {"k": [10, 20, {(1, "a"): "found"}]}
    obj = Obj(state=inner)
    s = sources.arg(1).attr("state").item("k").item(2).item((1, "a"))
    assert evaluate(s, (None, obj), {}, {}, ()) == "found"
    closure = types.CellType(obj)
    assert evaluate(sources.closure(0).attr("state"), (), {}, {}, (closure,)) is inner
    assert evaluate(sources.global_("g"), (), {}, {"g": 5}, ()) == 5
    assert evaluate(sources.kwarg("lr"), (), {"lr": 0.1}, {}, ()) == 0.1


def test_modules_are_looked_up_never_imported():
    assert "antigravity" not in sys.modules
    with pytest.raises(KeyError, match="not imported"):
        evaluate(sources.global_("x", "antigravity"), (), {}, {}, ())
    assert "antigravity" not in sys.modules
    import json
    assert evaluate(sources.global_("dumps", "json"), (), {}, {}, ()) is json.dumps


@pytest.mark.parametrize("s", [
    sources.arg(0).attr("state").item(0),
    sources.kwarg("lr").item("a").item(-1.5).item(b"\x00"),
    sources.global_("W").attr("T"),
    sources.global_("tf", "models.rnn").attr("nn"),
    sources.closure(2).item((1, ("a", None), True)),
    sources.table("Tree.encode", "children_0"),
])
def test_records_round_trip_structured_and_as_text(s):
    import json
    assert from_record(json.loads(json.dumps(s.to_json()))) == s
    assert Source.parse(s.expr) == s


@pytest.mark.parametrize("text", [
    PWN + " or args[0].s",
    "args[0].s or " + PWN,
    "args[0].__class__",
    "(args[0])",
    "args[0](1)",
    "args[0][" + PWN + "]",
    "args[0][x]",
    "args[0][1:2]",
    "args[0][[1]]",
    "args['0']",
    "kwargs[0]",
    "G[f'{1}']",
    "MOD['os']",
    "MOD['os']['system']()",
    "C[0]",
    "C[0].other",
    "CELL[1].cell_contents",     # a cell of another process
    "os.system",
    "lambda: 0",
    "args[0].s; " + PWN,
    "args[0].s\n" + PWN,
    "<table a b c>",
    "",
])
def test_the_text_parser_accepts_only_chains_over_known_roots(text):
    with pytest.raises(SourceError):
        Source.parse(text)


@pytest.mark.parametrize("data", [
    {"root": ["arg", 0], "steps": [["attr", PWN]]},
    {"root": ["arg", 0], "steps": [["attr", "__globals__"]]},
    {"root": ["arg", 0], "steps": [["item", {"obj": PWN}]]},
    {"root": ["arg", 0], "steps": [["item", [1, 2]]]},
    {"root": ["arg", 0], "steps": [["call", "x"]]},
    {"root": ["arg", "0"], "steps": []},
    {"root": ["arg", True], "steps": []},
    {"root": ["cell", 12345], "steps": []},
    {"root": ["module", "os"], "steps": []},
    {"root": ["arg", 0], "steps": [], "expr": PWN},
    {"root": ["arg", 0]},
    [["arg", 0], []],
])
def test_structured_records_are_validated(data):
    with pytest.raises(SourceError):
        from_record(data)


def test_code_rechecks_parts_even_if_a_source_was_forged():
    s = sources.arg(0).attr("x")
    object.__setattr__(s, "steps", (("attr", PWN),))
    with pytest.raises(SourceError):
        s.code()


# -- generated code ---------------------------------------------------------------------

def test_guard_code_holds_no_recorded_value_as_text():
    import tensorflow as tf

    from janus.graphgen.guards import Guard, GuardSet
    marker = Obj(value=PWN)
    guards = GuardSet([Guard("value", sources.arg(0).attr("value"), PWN),
                       Guard("keys", sources.arg(1), [PWN]),
                       Guard("tensor", sources.arg(2), ("float32", (2, None)))], {}, ())
    assert PWN not in guards.source_code
    assert guards.check((marker, {PWN: 1}, tf.ones([2, 5])), {}) == -1
    assert guards.check((marker, {"x": 1}, tf.ones([2, 5])), {}) == 1
    for shape in [("1) or " + PWN + " or (1",), (1.5,), (True,), "12"]:
        with pytest.raises(ValueError):
            GuardSet([Guard("tensor", sources.arg(0), ("float32", shape))], {}, ())


def test_feed_code_reads_only_checked_paths_and_literal_table_names():
    from janus.graphgen.specialize import _compile_feed
    import tensorflow as tf

    feed = _compile_feed([(sources.arg(0).attr("x"), "tensor", ("float32", (2,)))], {}, (), {})
    [x] = feed((Obj(x=tf.ones([2])),), {})
    assert x.shape == (2,)
    forged = sources.arg(0).attr("x")
    object.__setattr__(forged, "steps", (("attr", "x or " + PWN),))
    with pytest.raises(SourceError):
        _compile_feed([(forged, "tensor", ("float32", (2,)))], {}, (), {})
    with pytest.raises(ValueError):
        _compile_feed([(sources.arg(0), PWN, ("float32", (2,)))], {}, (), {})


@pytest.mark.parametrize("path", [PWN, "left or " + PWN, "left.__class__()", "left[0]", "",
                                  "a..b"])
def test_the_node_visitor_refuses_paths_that_are_not_attribute_chains(path):
    from janus.recursion.cases import Case
    from janus.recursion.table import compile_visitor
    for case in (Case(((path, True),), (), (), ("float32", ())),
                 Case((), ((path, int),), (), ("float32", ())),
                 Case((), (), (path,), ("float32", ()))):
        with pytest.raises(ValueError):
            compile_visitor([case])


def test_the_node_visitor_passes_expected_values_as_objects():
    from janus.recursion.cases import Case
    from janus.recursion.table import compile_visitor
    visit = compile_visitor([Case((("tag", PWN),), (("word", int),), (), ("float32", ()))])
    assert visit(Obj(tag=PWN, word=3)) == (0, (), (3,))
