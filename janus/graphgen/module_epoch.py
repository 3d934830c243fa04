"""A tf.Module's variable lists a trace read, guarded by Keras' epoch (F206).

tf.Module computes `variables`, `trainable_variables`... by walking its attributes on
every access (~170 us for a 6-variable MLP), and a graph holds the list its trace read.
So changes are counted instead: `install` wraps `AutoTrackable.__setattr__`/`__delattr__`
and the mutators of the list and dict wrappers it stores, which move
`keras_epoch.EPOCH` when they add, drop or reorder a variable or module:

    net.b = tf.Variable(10.0)          AutoTrackable.__setattr__ -> bump()
    net.ws.append(tf.Variable(1.0))    ListWrapper.append        -> bump()
    net.step = net.step + 1            (no variable or module: no bump)

`read` records the list with the trace's Keras reads (one guard: the epoch compare per
call; when it moved, the list is computed again and compared by identity). Changes behind
those (`net.__dict__["b"] = v`, `object.__setattr__`) are found by graphgen/module_dicts.py,
which the wrapped `__setattr__`/`__delattr__` tell what they wrote.
"""
from __future__ import annotations

import functools

import tensorflow as tf

from janus.graphgen import module_dicts
from janus.patches import once


_KINDS: tuple = ()  # (lists, dicts, structure classes, wrapper classes), set by install


def _structural(value, depth: int = 0) -> bool:
    """`value` is, or holds (lists, tuples, dicts), what a module's variable lists walk: a
    variable, a module, another trackable object."""
    lists, dicts, kinds, wrappers = _KINDS
    if isinstance(value, lists):
        return depth < 4 and any(_structural(v, depth + 1) for v in value)
    if isinstance(value, dicts):
        return depth < 4 and any(_structural(v, depth + 1) for v in value.values())
    return isinstance(value, kinds) and not isinstance(value, wrappers)


def _counted_setattr(setattr_, bump):
    @functools.wraps(setattr_)
    def counted(self, name, value):
        old = getattr(self, "__dict__", {}).get(name)
        try:
            return setattr_(self, name, value)
        finally:
            if old is not value and (_structural(value) or _structural(old)):
                bump()
            module_dicts.wrote(self, name)
    return counted


def _counted_delattr(delattr_, bump):
    @functools.wraps(delattr_)
    def counted(self, name):
        old = getattr(self, "__dict__", {}).get(name)
        try:
            return delattr_(self, name)
        finally:
            if _structural(old):
                bump()
            module_dicts.wrote(self, name)
    return counted


def _counted_mutator(method, bump, changed):
    """`method` of a list or dict wrapper, calling `bump` when `changed(self, args,
    after)` finds a variable or module among what it drops or moves (`after` None: before
    the call) or adds (`after`: the call's result)."""
    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        before = changed(self, args, None)
        result = method(self, *args, **kwargs)
        if before or changed(self, args, [result, *kwargs.values()]):
            bump()
        return result
    return counted


def _contents(self) -> list:
    return list(self.values()) if hasattr(self, "values") else list(self)


def _old(self, args, after):
    """Before the call: the item a removal or a replacement drops (everything, with no
    key: `clear`)."""
    if after is not None:
        return False
    if not args:
        return _structural(_contents(self))
    try:
        return _structural([self[args[0]]])
    except (KeyError, IndexError, TypeError):
        return False


def _new(self, args, after):
    """After the call: the items an insertion added (and what a `pop` handed back)."""
    return after is not None and _structural([*args, *after])


def _either(self, args, after):
    return _old(self, args, after) if after is None else _new(self, args, after)


def _whole(self, args, after):
    """A reorder, repeat or `clear`: everything, before."""
    return after is None and _structural(_contents(self))


@once
def install(bump) -> None:
    """Count structural changes of tf.Modules (and other AutoTrackables) with `bump`."""
    global _KINDS
    from tensorflow.python.trackable import autotrackable, base, data_structures as ds
    module_dicts.install(bump)
    _KINDS = ((list, tuple, ds.ListWrapper), (dict, ds._DictWrapper),
              (tf.Variable, tf.Module, base.Trackable), ds.TrackableDataStructure)
    cls = autotrackable.AutoTrackable
    cls.__setattr__ = _counted_setattr(cls.__dict__["__setattr__"], bump)
    cls.__delattr__ = _counted_delattr(cls.__dict__["__delattr__"], bump)
    for name, changed in (("append", _new), ("insert", _new), ("__setitem__", _either),
                          ("__delitem__", _old), ("sort", _whole), ("__imul__", _whole)):
        setattr(ds.ListWrapper, name,
                _counted_mutator(ds.ListWrapper.__dict__[name], bump, changed))
    for name, changed in (("__setitem__", _either), ("__delitem__", _old)):
        setattr(ds._DictWrapper, name,
                _counted_mutator(ds._DictWrapper.__dict__[name], bump, changed))
    for name in ("pop", "popitem", "setdefault", "clear"):  # (proxied to the dict)
        setattr(ds._DictWrapper, name, _counted_mutator(
            _forwarded(name), bump, _whole if name == "clear" else _either))


def _forwarded(name: str):
    def forwarded(self, *args, **kwargs):
        return getattr(self.__wrapped__, name)(*args, **kwargs)
    forwarded.__name__ = name
    return forwarded


def pending_change(tracer):
    """What a pending write of the trace changes in a module's variables (an attribute of
    an AutoTrackable bound to or from a variable or module, a tracked container's copy
    given one), or None."""
    from tensorflow.python.trackable.autotrackable import AutoTrackable
    ledger = tracer.ledger
    for (_, name), (obj, _, value) in ledger.attrs.items():
        if isinstance(obj, AutoTrackable) and (
                _structural(value) or _structural(getattr(obj, "__dict__", {}).get(name))):
            return f"`{name}` of a {type(obj).__name__}"
    for copy_id, source in ledger.dirty.items():
        copy = next((c for c, _ in ledger.copies.values() if id(c) == copy_id), None)
        if copy_id in tracer.tracked_copies or _structural(copy):
            return f"`{source.expr}`"
    return None
