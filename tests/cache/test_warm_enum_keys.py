"""A graph read through Enum member keys (F426) is recorded with its keys by name and
reused by a later process (F427): `counts[Color.RED]`, `metrics[Mode.EVAL]` (an IntEnum,
a str-mixin Enum), `by_split[Split.TRAIN]`, a dict with member keys made in the step.
Members are found again only in modules the program already imported; a record naming
one this process does not have is not used (and is not a malformed record).

Before: the guard on a member read from its class (`Color.RED`, a `value` guard) made
the graph not portable (the warm process generated it again), and JSON wrote an IntEnum
key of a result dict or of a `keys` guard as its int (a str-mixin one as its text)."""
import json
import warnings

import pytest
import tensorflow as tf

import janus
from janus.cache import portable
from tests.cache import enum_keys_program as program
from tests.cache.test_warm_models import run_program

PROGRAM = '''
import json
import tensorflow as tf
import janus
from tests.cache import enum_keys_program as p
step = janus.jit(p.step)
mine, plain = p.State(), p.State()
same = []
for k in range(6):
    x = tf.constant(float(k) + 0.5)
    same.append(p.snapshot(mine, step(mine, x)) == p.snapshot(plain, p.step(plain, x)))
janus.cache.flush()
print(json.dumps({"same": same, "stats": janus.stats(step).as_dict(),
                  "loaded": [s.portable is not None for s in step.specializations]}))
'''


@pytest.mark.slow  # (two processes: over 10 s)
def test_a_warm_process_reuses_the_graph_with_enum_keys(tmp_path):
    cold = run_program(PROGRAM, tmp_path)
    warm = run_program(PROGRAM, tmp_path)
    assert all(cold["same"]) and cold["stats"]["generations"] == 1, cold
    assert all(warm["same"]), warm
    stats = warm["stats"]
    assert (stats["profile_calls"], stats["generations"]) == (0, 0), warm
    assert warm["loaded"] == [True] and stats["graph_calls"] >= 4, warm


def _recorded():
    step, state = janus.jit(program.step), program.State()
    for k in range(5):
        step(state, tf.constant(float(k)))
    spec = step.specializations[0]
    data = portable.export(spec)
    assert data is not None
    return json.loads(json.dumps(data)), step, spec


def _load(data, step, spec, state):
    args = (state, tf.constant(2.0))
    env = (args, {}, program.step.__globals__, ())
    return portable.load(data, args, {}, env, 99, step.plan, spec.converted), args, env


def _names(data):
    """The `{"enum": [module, qualname, name]}` entries of a record, to tamper with."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            if set(value) == {"enum"}:
                found.append(value["enum"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    walk(data)
    return found


def test_the_record_names_members_and_loads_them_with_their_types(cache_dir):
    data, step, spec = _recorded()
    names = _names(data)
    assert [program.__name__, "Color", "RED"] in names and \
        [program.__name__, "Mode", "EVAL"] in names, names
    state, plain = program.State(), program.State()
    loaded, args, env = _load(data, step, spec, state)
    assert loaded is not None
    got, want = loaded.run(args, {}, env), program.step(plain, args[1])
    assert program.snapshot(state, got) == program.snapshot(plain, want)
    assert [type(k) for k in got[1]] == [program.Color, program.Split]


@pytest.mark.parametrize("where, bad", [(0, "tests.not_imported_module_xyz"),
                                        (2, "PURPLE"), (1, "State")])
def test_a_record_naming_a_member_this_process_lacks_is_not_used(cache_dir, where, bad):
    data, step, spec = _recorded()
    for entry in _names(data):
        entry[where] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (not malformed: no warning)
        assert _load(data, step, spec, program.State())[0] is None


def test_a_malformed_member_name_is_refused(cache_dir):
    data, step, spec = _recorded()
    _names(data)[0][1] = "Color.__class__"
    with pytest.warns(UserWarning, match="malformed"):
        assert _load(data, step, spec, program.State())[0] is None


def scaled(d, x):
    return {k: v * x for k, v in d.items()}


def test_a_result_dict_keyed_by_int_enum_members_keeps_them(cache_dir):
    """(Before: its keys were recorded as an int and a str, which the keys guard, by type
    since F426, refuses for these members: the record was never reused.)"""
    d = {program.Color.RED: 1.0, program.Mode.EVAL: 2.0}
    step = janus.jit(scaled)
    for k in range(5):
        step(dict(d), tf.constant(float(k)))
    spec = step.specializations[0]
    data = json.loads(json.dumps(portable.export(spec)))
    args = (dict(d), tf.constant(3.0))
    env = (args, {}, scaled.__globals__, ())
    loaded = portable.load(data, args, {}, env, 99, step.plan, spec.converted)
    got = loaded.run(args, {}, env)
    assert [type(k) for k in got] == [program.Color, program.Mode], got
    assert {k: float(v) for k, v in got.items()} == {program.Color.RED: 3.0,
                                                     program.Mode.EVAL: 6.0}
    ints = ({1: 1.0, "eval": 2.0}, tf.constant(3.0))   # (equal keys of other types)
    assert portable.load(data, ints, {}, (ints, {}, scaled.__globals__, ()), 99,
                         step.plan, spec.converted) is None
