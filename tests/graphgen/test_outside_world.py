"""Calls that read or change the world outside the program (graphgen/outside_world.py,
F432): files rewritten, made and listed between calls; plain Python asks again on every
call, a graph would keep the trace's answer."""
import glob
import json
import locale
import os
import pathlib
import types

import numpy as np
import pytest
import tensorflow as tf

from tests.differential import assert_same

READS = {
    "os.path.exists": lambda d: 2.0 if os.path.exists(os.path.join(d, "STOP")) else 1.0,
    "os.path.getsize": lambda d: float(os.path.getsize(os.path.join(d, "scale.txt"))),
    "pathlib read_text": lambda d: float(pathlib.Path(d, "scale.txt").read_text()),
    "glob.glob": lambda d: float(len(glob.glob(os.path.join(d, "*.ckpt")))),
    "tf.io.gfile.exists": lambda d: 2.0 if tf.io.gfile.exists(os.path.join(d, "STOP")) else 1.0,
    "tf.io.gfile.listdir": lambda d: float(len(tf.io.gfile.listdir(d))),
    "tf.io.gfile.GFile": lambda d: float(tf.io.gfile.GFile(os.path.join(d, "scale.txt")).read()),
    "np.load": lambda d: float(np.load(os.path.join(d, "scale.npy"))[0]),
    "json.load": lambda d: float(json.load(open(os.path.join(d, "scale.json")))["s"]),
}


def _calls(d, n=8):
    """Before call i: the files say i (the scale file, i+1 digits long), a checkpoint
    more, and from call 4 on a STOP file."""
    def call(i):
        def args(_):
            pathlib.Path(d, "scale.txt").write_text(str(i) * (i + 1))
            pathlib.Path(d, f"{i}.ckpt").touch()
            pathlib.Path(d, "scale.json").write_text(json.dumps({"s": i}))
            np.save(os.path.join(d, "scale.npy"), np.array([float(i)]))
            if i == 4:
                pathlib.Path(d, "STOP").touch()
            return (tf.constant([1.0, 2.0]),)
        return args
    return [call(i) for i in range(n)]


@pytest.mark.parametrize("name", list(READS))
def test_a_file_read_in_the_step_is_read_on_every_call(name, tmp_path):
    # (before: the trace's answer kept: `os.path.exists` 1, 1, 1, 1, 2, 1, 2, 1)
    read = READS[name]

    def step(d, x):
        return x * read(d)
    assert_same(step, _calls(str(tmp_path)), make_state=lambda: str(tmp_path))


_DIRS = {}  # id of a side's state -> its directory


@pytest.mark.parametrize("write", ["np.save", "tf.io.gfile.GFile"])
def test_a_file_written_in_the_step_is_written_on_every_call(tmp_path, write):
    sides = iter(["plain", "janus"])

    def side():
        state = types.SimpleNamespace()
        _DIRS[id(state)] = tmp_path / next(sides)
        _DIRS[id(state)].mkdir()
        return state

    def step(s, x):
        path = os.path.join(_DIRS[id(s)], "out")
        if write == "np.save":
            np.save(path, np.array([1.0]))
        else:
            tf.io.gfile.GFile(path, "w").write("1")
        return tf.reduce_sum(x)

    def call(s):
        for path in _DIRS[id(s)].iterdir():
            path.unlink()
        return (tf.constant([1.0]),)
    assert_same(step, [call] * 6, make_state=side,
                observe=lambda s: len(list(_DIRS[id(s)].iterdir())))


def test_path_text_alone_stays_in_the_graph():
    # (`os.path.join`, `basename`, `Path(...) / name`, `.with_suffix`: the text alone)
    def step(x):
        path = pathlib.Path(os.path.join("runs", "exp")) / "w.ckpt"
        name = os.path.basename(str(path.with_suffix(".npy")))
        return x * float(len(name))
    stats = assert_same(step, [(tf.constant([1.0, 2.0]),)] * 8)
    assert stats.graph_calls >= 5, stats


def _c_utf8() -> str | None:
    for name in ("C.UTF-8", "C.utf8", "en_US.UTF-8"):
        try:
            locale.setlocale(locale.LC_NUMERIC, name)
            return name
        except locale.Error:
            continue
        finally:
            locale.setlocale(locale.LC_NUMERIC, "C")
    return None


def test_the_locale_read_in_the_step_is_read_on_every_call():
    """F434: `locale.getlocale()` (any `locale` function: the process's settings) was a
    constant of the graph; the locale set before calls 4 and 7 (before: 3 calls wrong)."""
    other = _c_utf8()
    if other is None:
        pytest.skip("no second locale on this machine")

    def step(x):
        encoding = locale.getlocale(locale.LC_NUMERIC)[1]
        return x * (2.0 if encoding is None else 3.0)

    def call(i):
        def args(_):
            if i in (4, 7):
                locale.setlocale(locale.LC_NUMERIC, other if i == 4 else "C")
            return (tf.constant([1.0, 2.0]),)
        return args
    try:
        assert_same(step, [call(i) for i in range(10)], make_state=object)
    finally:
        locale.setlocale(locale.LC_NUMERIC, "C")
