"""Library code reading a plain record of the program's (F266): `str.format` field paths
(`"{0.lr}".format(cfg)`), `format_map`, `dataclasses.asdict`/`astuple` of a config
object read its fields through janus's hooks (graphgen/plain_records.py) and keep
graphs; what they cannot read so (a property, a list field, a record formatted whole, a
record in a container) stays refused; a located record in a dict handed to a content
reader is refused too (F290: `"{c.lr}".format_map(s.args)` with `s.args` a heap dict
was folded in). Compared with plain Python call by call, the records changed between
calls and in the calls."""
import dataclasses
import pickle

import tensorflow as tf

from tests.differential import assert_same


@dataclasses.dataclass
class Opt:
    beta: float = 0.9


@dataclasses.dataclass
class Cfg:
    lr: float = 0.1
    steps: int = 3
    name: str = "run"
    dims: tuple = (2, 3)
    opt: Opt = dataclasses.field(default_factory=Opt)


class Plain:
    def __init__(self):
        self.lr = 0.5
        self.tag = "p"


class Computed:
    def __init__(self):
        self._lr = 0.25
        self.hist = [1.0]

    @property
    def lr(self):
        return self._lr


class State:
    def __init__(self):
        self.cfg = Cfg()
        self.p = Plain()
        self.c = Computed()
        self.log = []
        self.args = {"c": self.cfg}
        self.i = 0


def formatted(s, x):
    s.log.append("{0.lr} {0.name!r:>6} {1.tag} {0.dims[1]} {0.opt.beta:.2f}".format(s.cfg, s.p))
    return x * s.cfg.lr


def formatted_by_name(s, x):
    s.log.append("{c.lr}/{c.steps}|{p.tag}".format(c=s.cfg, p=s.p))
    s.log.append("{c.lr}-{n}".format_map({"c": s.cfg, "n": 2}))
    return x + 1.0


def as_dict(s, x):
    d = dataclasses.asdict(s.cfg)
    t = dataclasses.astuple(s.cfg)
    s.log.append(d["name"])
    return x * d["lr"] + d["steps"] + len(t[3]) + t[4][0] + d["opt"]["beta"]


def written_then_formatted(s, x):
    s.cfg.lr = s.cfg.lr + 1.0  # (pending while the graph runs: read through the hooks)
    s.log.append("{0.lr}".format(s.cfg))
    return x * dataclasses.asdict(s.cfg)["lr"]


def counter_formatted(s, x):
    s.log.append("step {0.i}".format(s))
    return x * 2.0


def _changes(i, s):
    if i == 5:
        s.cfg.lr = 0.2
    if i == 7:
        s.cfg.name, s.p.tag = "b", "q"
        s.cfg.opt.beta = 0.5
    if i == 9:
        s.cfg = Cfg(lr=0.3, dims=(4, 5, 6))
    if i == 10:
        s.cfg.steps = 3.0  # (equal, another type)
    s.i = i
    return (s, tf.constant(1.0))


CALLS = [(lambda s, i=i: _changes(i, s)) for i in range(13)]


def test_format_fields_of_records_keep_graphs():
    for fn in (formatted, formatted_by_name, as_dict):
        assert assert_same(fn, CALLS, State).graph_calls >= 6, fn.__name__


def test_a_record_written_in_the_call_is_read_as_written():
    assert assert_same(written_then_formatted, CALLS, State).graph_calls >= 6


def test_a_field_changing_every_call_is_not_a_graph_per_value():
    stats = assert_same(counter_formatted, CALLS, State)
    assert stats.generations <= 3


def refused(s, x):
    s.log.append("{0.lr}".format(s.c))  # (a property)
    s.log.append("{0.hist}".format(s.c))  # (a list)
    s.log.append("{0}".format(s.p).split(" at ")[0])  # (formatted whole)
    s.log.append("{0[0].lr}".format([s.cfg]))  # (through a container)
    s.log.append(len(pickle.dumps({"c": s.cfg})))  # (F290: in a dict)
    s.log.append("{c.lr}".format_map(s.args))  # (F290: a heap dict)
    return x + 1.0


def _refused_changes(i, s):
    if i == 4:
        s.c._lr = 0.75
        s.c.hist.append(2.0)
        s.cfg.lr = 0.4
    return (s, tf.constant(1.0))


def test_what_no_hook_reads_stays_plain_pythons():
    assert_same(refused, [(lambda s, i=i: _refused_changes(i, s)) for i in range(8)], State)


def in_a_heap_dict(s, x):
    s.log.append("{c.lr}".format_map(s.args))
    return x + 1.0


def in_a_dict(s, x):
    s.log.append("{0[c].lr}".format({"c": s.cfg}))
    return x + 1.0


def test_a_record_in_a_dict_a_content_reader_is_handed_is_not_folded_in():
    """F290: the refusal looked into lists and tuples handed, not dicts."""
    for fn in (in_a_heap_dict, in_a_dict):
        assert_same(fn, [(lambda s, i=i: _refused_changes(i, s)) for i in range(8)], State)
