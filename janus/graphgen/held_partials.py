"""A `functools.partial` a Keras object holds, in its settings by value, not by identity.

Research code rebinds an activation to a new, equal partial on every call:

    d.activation = functools.partial(tf.nn.leaky_relu, alpha=0.2)

Compared by identity (F281), each new partial failed the settings guard: a graph per call.
A partial's behaviour is its function, its arguments and its keywords, so its settings
(graphgen/keras_settings.py) are those, each compared as a setting is (a number by value,
another object by identity):

    activation.func          tf.nn.leaky_relu     by identity
    activation.args[0]       ...                  by value (a number) or identity
    activation.keywords      LiveKeywords          the same object for one attribute of one
                                                  object: its items are those of the
                                                  partial the attribute holds *now*, which
                                                  keras_contents checks on every call (a
                                                  keyword changed in place, `keywords[
                                                  "alpha"] = 0.5`, or a rebound partial's)

`equal` tells keras_settings.counted_setattr that a rebinding changed nothing Keras
reads (no epoch move: the settings need no second look).
"""
from __future__ import annotations

import functools
import weakref

_SETTINGS = (int, float, bool, str, type(None))  # (keras_settings.SETTING_TYPES)
_GONE = ("<not a partial>", object())  # (an item no trace read: the check fails)


def plain_partial(value) -> bool:
    """A `functools.partial` itself (a subclass may call otherwise: by identity)."""
    return type(value) is functools.partial


class LiveKeywords(dict):
    """The keywords of the partial `owner.<name>` holds when asked (empty as a dict
    itself: every read goes to the partial's)."""

    def __init__(self, owner, name: str):
        super().__init__()
        self._owner, self._name = weakref.ref(owner), name

    def _current(self) -> dict:
        owner = self._owner()
        held = None if owner is None else getattr(owner, "__dict__", {}).get(self._name)
        return held.keywords if plain_partial(held) else dict([_GONE])

    def __len__(self): return len(self._current())
    def __iter__(self): return iter(list(self._current()))
    def __contains__(self, key): return key in self._current()
    def __getitem__(self, key): return self._current()[key]
    def get(self, key, default=None): return self._current().get(key, default)
    def keys(self): return list(self._current().keys())
    def values(self): return list(self._current().values())
    def items(self): return list(self._current().items())

    def __repr__(self):
        return f"<keywords of .{self._name}: {self._current()!r}>"


_LIVE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # owner -> {name: view}


def _live(owner, name: str) -> LiveKeywords:
    try:
        views = _LIVE.setdefault(owner, {})
    except TypeError:  # (an object without weak references: a view of its own each time)
        return LiveKeywords(owner, name)
    view = views.get(name)
    if view is None:
        view = views[name] = LiveKeywords(owner, name)
    return view


def settings(owner, name: str, value: functools.partial) -> list:
    """(name, value) settings of the partial `owner.name` holds (see the docstring)."""
    return [(f"{name}.func", value.func), (f"{name}.keywords", _live(owner, name))] + \
        [(f"{name}.args[{i}]", a) for i, a in enumerate(value.args)]


def equal(old, new) -> bool:
    """`new` is a partial that calls as `old` does: the same function, equal numbers as
    its arguments and keywords (a mutable one: not equal, its object is what is
    watched)."""
    if not (plain_partial(old) and plain_partial(new)) or old.func is not new.func or \
            len(old.args) != len(new.args) or old.keywords.keys() != new.keywords.keys():
        return False
    pairs = list(zip(old.args, new.args)) + \
        [(v, new.keywords[k]) for k, v in old.keywords.items()]
    return all(type(a) is type(b) and type(a) in _SETTINGS and a == b for a, b in pairs)
