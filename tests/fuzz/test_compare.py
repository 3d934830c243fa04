"""The fuzzer's comparison catches each kind of difference (so a green run means something)."""
import tensorflow as tf

from tests.fuzz import compare, generator, inputs, runner


def _outcome(value=None, error=None, stdout="", heap=None):
    return runner._Outcome(compare.snapshot(value), error, stdout, compare.snapshot(heap))


def test_each_kind_of_difference_is_a_divergence():
    same = _outcome(tf.constant([1.0]), heap={"a": [1]})
    assert runner._compare(same, _outcome(tf.constant([1.0 + 1e-7]), heap={"a": [1]})) is None
    cases = {
        "result": _outcome(tf.constant([1.1]), heap={"a": [1]}),
        "heap": _outcome(tf.constant([1.0]), heap={"a": [1, 2]}),
        "stdout": _outcome(tf.constant([1.0]), stdout="x\n", heap={"a": [1]}),
        "janus-raised:ValueError": _outcome(error=ValueError("v"), heap={"a": [1]}),
    }
    for kind, other in cases.items():
        assert runner._compare(same, other)[0] == kind
    raised = _outcome(error=ValueError("v"), heap={})
    assert runner._compare(raised, _outcome(1, heap={}))[0] == "missing-raise"
    assert runner._compare(raised, _outcome(error=KeyError("v"), heap={}))[0] == \
        "wrong-exception:ValueError->KeyError"
    assert runner._compare(raised, _outcome(error=ValueError("w"), heap={}))[0] == \
        "exception-message"
    v1, v2 = tf.Variable(1.0), tf.Variable(2.0)
    assert runner._compare(_outcome(heap={"V": v1}), _outcome(heap={"V": v2}))[0] == "variables"
    assert runner._compare(_outcome(1), _outcome(1.0))[0] == "result"  # Python types exact


def test_numpy_float_scalars_within_tolerance_and_types_exact():
    """`t.numpy()` of a float32 scalar a graph rounded one ulp apart (warm seed 569042)
    is within tolerance, like a Python float; its numpy type is still exact."""
    import numpy as np
    one, near = np.float32(0.9874929189682007), np.float32(0.9874928593635559)
    assert compare.difference(compare.snapshot(one), compare.snapshot(near)) is None
    assert compare.difference(compare.snapshot(one), compare.snapshot(np.float32(0.99)))
    assert compare.difference(compare.snapshot(one), compare.snapshot(np.float64(one)))
    assert compare.difference(compare.snapshot(np.int64(3)), compare.snapshot(np.int64(4)))


def test_printed_numbers_within_tolerance_and_nothing_else():
    assert compare.text_difference("t [0.3839011 ]\n", "t [0.38390106]\n") is None
    assert compare.text_difference("a 1.5\n", "a 1.6\n")
    assert compare.text_difference("p 0 4\n", "p 04\n")
    assert compare.text_difference("p 1\n", "p 2\n")


def test_a_program_that_mutates_its_module_differently_is_caught():
    """The whole pipeline: a 'janus' side whose module differs must be reported."""
    program = generator.generate(3, n_calls=3)
    result = runner.run(program.source, program.calls)
    assert result.calls >= 1
    broken = program.source.replace("G_SCALE = 1.5", "G_SCALE = 1.5\nG_LIST.append(0)")
    plain, jit = runner._Side(program.source, "p", False), runner._Side(broken, "j", False)
    try:
        spec = program.calls[0]
        x, xs, n, flag = inputs.arguments(spec)
        found = runner._compare(plain.call(spec, x, n, flag, list(xs)),
                                jit.call(spec, x, n, flag, list(xs)))
    finally:
        runner.unload(plain.module)
        runner.unload(jit.module)
    assert found is not None and found[0] in ("heap", "result", "stdout")


_SENSITIVE = """
import tensorflow as tf
JIT = globals().get("JIT", lambda fn: fn)
class State:
    def __init__(self):
        self.total = 0.0
def f(s, x, xs, n, flag):
    s.total = float(tf.reduce_sum(tf.sin(x * 1e6)).numpy())
"""


def test_a_float_difference_counts_unless_plain_python_moves_as_much():
    """Ill-conditioned programs: plain Python itself moves beyond the tolerance when its
    inputs move by a few ulps; a well-conditioned one does not, so its differences count."""
    calls = [{"shape": [3], "dtype": "float32", "seed": 1, "len": 0, "n": 0, "flag": True,
              "obj": "main"}]
    for source, sensitive in ((_SENSITIVE, True),
                              (_SENSITIVE.replace("tf.sin(x * 1e6)", "x"), False)):
        side = runner._Side(source, "plain", jit=False)
        x, xs, n, flag = inputs.arguments(calls[0])
        expected = side.call(calls[0], x, n, flag, list(xs))
        runner.unload(side.module)
        assert runner._ill_conditioned(source, calls, expected) is sensitive
    # only differences below LOOSE can be noise at all
    assert compare.difference(compare.snapshot(1.0), compare.snapshot(1.0001), tol=runner.LOOSE) \
        is None
    assert compare.difference(compare.snapshot(1.0), compare.snapshot(1.01), tol=runner.LOOSE)


_ROUNDED = """
import tensorflow as tf
JIT = globals().get("JIT", lambda fn: fn)
class State:
    def __init__(self):
        self.count = 0
def f(s, x, xs, n, flag):
    acc = tf.sin(x) * 0.9 * 1.5
    loss = tf.reduce_sum(acc * acc)
    if getattr(s, "best", None) is None or loss < s.best:
        s.best = loss
        s.count += 1
"""


def test_a_difference_grapplers_float_rewrites_made_is_gone_and_a_real_one_stays():
    """F40: Grappler's arithmetic optimizer folded `sin(x) * 0.9 * 1.5` into
    `sin(x) * 1.35` (one ulp off eager's value); `loss < s.best` against the value an eager
    run stored was then True where plain Python compares equal values, and the runner
    listed the program with the ill-conditioned ones. janus's graphs run without that
    optimizer (F141): the program agrees outright. A difference that stays with the
    rewrites off (here the two sides' `JIT` itself) is a divergence."""
    spec = {"shape": [2, 3], "dtype": "float32", "seed": 56, "len": 0, "n": 2, "flag": True}
    calls = [dict(spec, obj=o) for o in ["main"] * 4 + ["new"] * 2 + ["alt"] * 4]
    calls[-1]["n"] = 4  # (the sequence of fuzz seed 540051, minimized)
    assert runner._graph_rounding(_ROUNDED, calls)
    result = runner.run(_ROUNDED, calls)
    assert result.divergence is None and result.ill_conditioned == "", result
    assert tf.config.optimizer.get_experimental_options().get("constant_folding") is None
    sides = _ROUNDED.replace("s.count += 1", "s.count += 1\n    s.jit = JIT.__name__")
    assert not runner._graph_rounding(sides, calls[:1])
    result = runner.run(sides, calls)
    assert result.divergence is not None and result.divergence.kind == "heap", result


_NAMES_A_FRAME = """
import logging
import os
import warnings
JIT = globals().get("JIT", lambda fn: fn)
LOG = logging.getLogger(__name__)
class State:
    pass
def helper():
    warnings.warn("from a helper", UserWarning, stacklevel=2)
def f(s, x, xs, n, flag):
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    LOG.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            helper()
        LOG.warning("step")
    finally:
        LOG.removeHandler(handler)
    return os.path.basename(caught[0].filename), caught[0].lineno, records[0].module
"""


def test_both_sides_run_a_file_of_one_basename(monkeypatch, tmp_path):
    """F439: what a warning or a logging record names of the program's file is alike on
    the two sides: loads numbered 9 and 10 (the plain side after an odd number of loads),
    and a warm run's plain copy next to janus's `fzw_<seed>.py`."""
    import itertools

    from tests.fuzz import warm

    monkeypatch.setattr(runner, "_COUNTER", itertools.count(9))
    calls = {"shape": [2], "dtype": "float32", "seed": 1, "len": 0, "n": 0, "flag": True,
             "obj": "main"}
    x, xs, n, flag = inputs.arguments(calls)
    path = warm.program_path(str(tmp_path), 95)
    with open(path, "w") as f:
        f.write(_NAMES_A_FRAME)
    warm_side = runner._Side.__new__(runner._Side)
    warm_side.module = runner.load_file(path, "fzw_95", jit=False)
    warm_side.fn = warm_side.module.f
    warm_side.objects = {"main": warm_side.module.State(), "alt": warm_side.module.State()}
    pairs = [(runner._Side(_NAMES_A_FRAME, "plain", False),
              runner._Side(_NAMES_A_FRAME, "janus", False)),
             (runner._Side(_NAMES_A_FRAME, "plain", False, stem="fzw_95"), warm_side)]
    try:
        for plain, other in pairs:
            expected = plain.call(calls, x, n, flag, list(xs))
            assert expected.error is None
            assert runner._compare(expected, other.call(calls, x, n, flag, list(xs))) is None
    finally:
        for side in (side for pair in pairs for side in pair):
            runner.unload(side.module)
