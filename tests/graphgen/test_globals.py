"""Globals are guarded in the module they belong to, also for callees in other modules."""
import numpy as np
import tensorflow as tf

import janus
import other_module

SCALE = 2.0


def caller(x):
    return other_module.helper(x) + SCALE


def test_callee_globals_are_read_from_the_callee_module():
    jitted = janus.jit(caller)
    x = tf.constant([1.0, 2.0])
    for scale in [3.0, 3.0, 3.0, 3.0, 5.0, 5.0, 7.0]:
        other_module.SCALE = scale
        np.testing.assert_allclose(jitted(x).numpy(), caller(x).numpy())
    stats = janus.stats(jitted)
    assert stats.graph_calls >= 3
    guards = [line for spec in jitted.specializations for line in spec.guards.describe()]
    assert any(line.startswith("MOD['other_module']['SCALE']") for line in guards)
    assert any(line.startswith("G['SCALE'] == 2.0") for line in guards)


# -- F232 / F233: a module's namespace as a dict; modules the program made at run time ---
import sys  # noqa: E402
import types  # noqa: E402

from tests.differential import assert_same  # noqa: E402


def _reads_namespace(side, x):
    g = globals()
    globals()["STEPS"] = g["STEPS"] + 1
    return x * globals()["LR"] + g.get("BIAS", 5.0), globals()["STEPS"]


def _reads_module_dict(side, x):
    mod = sys.modules[MODULE]
    return x * mod.__dict__["LR"] + vars(mod)["BIAS"] + vars(mod).get("BIAS", 2.0)


def _reads_made_module(side, x):
    return x * CFG.LR + side.cfg.BIAS


def _reads_lazy_setting(side, x):
    return x * LAZY.LR


class _Side:
    """One side's module globals: the function copied onto a namespace of its own."""
    count = 0
    parts: dict = {}

    def __init__(self, fn):
        _Side.count += 1
        name = f"tests_graphgen_namespace_{_Side.count}"
        module = types.ModuleType(name)  # (in sys.modules: found by its name)
        module.LR, module.BIAS = 0.1, 0.0
        sys.modules[name] = module
        lazy = types.ModuleType(name + "_lazy")  # (a PEP 562 `__getattr__` setting)
        lazy.state = {"lr": 0.1}
        lazy.__getattr__ = lambda attr: lazy.state["lr"] if attr == "LR" else \
            (_ for _ in ()).throw(AttributeError(attr))
        self.cfg = types.ModuleType("run_cfg")  # (made at run time, one per side)
        self.cfg.LR, self.cfg.BIAS = 0.1, 1.0
        ns = {"__name__": name + "_fn", "sys": sys, "MODULE": name, "LR": 0.1,
              "BIAS": 0.0, "STEPS": 0, "CFG": self.cfg, "LAZY": lazy}
        _Side.parts[id(self)] = (ns, module, lazy)  # (not in the compared heap: names differ)
        self.fn = types.FunctionType(fn.__code__, ns, fn.__name__)

    def set(self, value):
        ns, module, lazy = _Side.parts[id(self)]
        ns["LR"] = module.LR = self.cfg.LR = value
        lazy.state["lr"] = value
        return self


def _run_sides(fn, values):
    sides = [_Side(fn), _Side(fn)]
    made = iter(sides)
    jitted = janus.jit(sides[1].fn)
    fns = [side.__dict__.pop("fn") for side in sides]
    calls = [(lambda s, v=v: (s.set(v), tf.constant([1.0, 2.0]))) for v in values]
    return assert_same(fns[0], calls, lambda: next(made), jitted=jitted)


VALUES = [0.1] * 4 + [0.5] * 4 + [0.25] * 2


def test_globals_as_a_dict_are_read_as_the_globals():
    stats = _run_sides(_reads_namespace, VALUES)
    assert stats.graph_calls >= 5 and stats.generations <= 3


def test_a_module_s_dict_and_vars_are_read_as_its_globals():
    stats = _run_sides(_reads_module_dict, VALUES)
    assert stats.graph_calls >= 5 and stats.generations <= 3


def test_a_module_made_at_run_time_is_the_program_s():
    stats = _run_sides(_reads_made_module, VALUES)
    assert stats.graph_calls >= 5 and stats.generations <= 3


def test_a_module_getattr_setting_is_not_guarded_by_its_namespace():
    stats = _run_sides(_reads_lazy_setting, VALUES)
    assert stats.generations <= 1  # (refused: a new graph on every call before)
