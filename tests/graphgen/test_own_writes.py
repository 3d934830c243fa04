"""graphgen/own_writes.py: a trace's own library writes undone item by item, another
thread's writes (before, between and after the trace's calls) kept (F433)."""
import argparse
import collections
import types

from janus.graphgen import own_writes


def _lib_call(writes, change):
    """`change()` as a library call of the trace (no other thread runs in it)."""
    with writes.call(len, (), {}):
        change()


def test_the_traces_writes_are_undone_and_another_threads_kept():
    d, lst, st, dq = {"a": 1}, [1], {1}, collections.deque([1])
    obj = argparse.Namespace(x=1)
    cell = types.CellType(1)
    holders = [d, lst, st, dq, obj, cell]
    writes = own_writes.Writes(holders, active=True)
    d["other0"] = 0  # (another thread, before the trace's call)
    _lib_call(writes, lambda: (d.update(a=2, mine=3), lst.append(2), st.add(2),
                               dq.append(2), setattr(obj, "x", 2), setattr(obj, "y", 3),
                               setattr(cell, "cell_contents", 2)))
    d["other1"] = 1  # (another thread, after it)
    lst.append(9)
    st.add(9)
    obj.z = 9
    writes.undo()
    assert d == {"a": 1, "other0": 0, "other1": 1}
    assert lst == [1, 9] and st == {1, 9} and list(dq) == [1]
    assert vars(obj) == {"x": 1, "z": 9} and cell.cell_contents == 1


def test_an_item_written_again_since_stays():
    d, lst = {"a": 1}, [1]
    writes = own_writes.Writes([d, lst], active=True)
    _lib_call(writes, lambda: (d.update(a=2), lst.__setitem__(0, 5)))
    d["a"] = 7  # (another thread wrote it after the trace's call)
    lst.insert(0, 0)
    writes.undo()
    assert d == {"a": 7} and lst == [0, 5]


def test_inactive_or_tensorflow_calls_record_nothing():
    d = {}
    idle = own_writes.Writes([d], active=False)
    _lib_call(idle, lambda: d.update(a=1))
    assert idle.changes == []
    import tensorflow as tf
    writes = own_writes.Writes([d], active=True)
    with writes.call(tf.add, (1, 2), {}):  # (TensorFlow's, no callable: not looked at)
        d["b"] = 2
    writes.undo()
    assert d == {"a": 1, "b": 2}


def test_explains_only_changes_all_made_by_the_traces_calls():
    mine, theirs = {"a": 1}, {"a": 1}
    writes = own_writes.Writes([mine, theirs], active=True)
    saved_mine, saved_theirs = dict(mine), dict(theirs)
    _lib_call(writes, lambda: mine.update(b=2))
    theirs["c"] = 3  # (another thread, between calls)
    _lib_call(writes, lambda: (mine.update(d=4), theirs.update(e=5)))
    assert writes.explains(mine, saved_mine)
    assert not writes.explains(theirs, saved_theirs)  # (c is not the trace's)
    mine["x"] = 0  # (and now mine has a change not the trace's either)
    assert not writes.explains(mine, saved_mine)
