"""`is_tensor`: `tf.is_tensor` at the cost of a dictionary lookup.

`tf.is_tensor` ends in an `isinstance` against a runtime-checkable Protocol, ~10 us for
every object that is *not* a tensor (a list, an RNG, an environment, a Keras layer) —
and janus asks it on every call the Python between graph segments makes (the owner of a
method, each argument). Its answer depends on the object's type only (the Protocol asks
for an `is_tensor_like` attribute, which tensor-like classes define on the class), so it
is asked once per type. An object whose own `__getattr__` raises for the name (an
"AttrDict", `__getattr__ = dict.__getitem__`: KeyError) is no tensor
(janus/user_attributes.py).
"""
from __future__ import annotations

import weakref

import tensorflow as tf

_MAX_TYPES = 4096
_answers: dict[type, bool] = {}
_made_answers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def per_type(table: dict, made: weakref.WeakKeyDictionary, cls: type):
    """What `table` (else `made`) holds for cls, or None."""
    found = table.get(cls)
    return made.get(cls) if found is None and made else found


def remember(table: dict, made: weakref.WeakKeyDictionary, cls: type, answer) -> None:
    """Keep a per-type answer: a class made by a function (`<locals>` in its name: one
    per call, maybe) weakly, so it dies as in plain Python (F412); at most _MAX_TYPES."""
    if "<locals>" in getattr(cls, "__qualname__", ""):
        if len(made) < _MAX_TYPES:
            made[cls] = answer
    elif len(table) < _MAX_TYPES:
        table[cls] = answer


def is_tensor(value) -> bool:
    """Whether TF ops take `value` as it is (`tf.is_tensor`)."""
    if isinstance(value, tf.Tensor):
        return True
    cls = type(value)
    answer = per_type(_answers, _made_answers, cls)
    if answer is None:
        try:
            answer = tf.is_tensor(value)
        except Exception:  # (the Protocol's hasattr ran the user's __getattr__)
            answer = False
        if not hasattr(cls, "is_tensor_like") and answer:  # an instance's own attribute:
            return answer                                # not the type's answer
        remember(_answers, _made_answers, cls, answer)
    return answer
