"""The program's own classes in the MRO of an object of a library class's subclass.

    class Scaled(keras.layers.Dense): ...        program_bases(Scaled) == (Scaled,)
    class ScaledSGD(Mixin, keras.optimizers.SGD) program_bases(...) == (ScaledSGD, Mixin)

What the program's classes define on top of a library class decides three things:
the attributes their methods store (keras_settings.program_written: state, not a setting
Keras' inherited code reads), a property, descriptor or `__getattr__` in front of what
Keras's own `call` reads (layer_calls.base_call), and what an optimizer's update runs of
the program's (fallback/mixed.py, graphgen/held_code.program_methods). The walk, once:
"""
from __future__ import annotations

import weakref

from janus.transform.runtime import is_user_class

_BASES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def program_bases(cls: type) -> tuple:
    """The classes of `cls`'s MRO that the program defined, in MRO order (cached: a
    class's MRO does not change)."""
    try:
        found = _BASES.get(cls)
    except TypeError:  # (not weakly referable)
        found = None
    if found is None:
        found = tuple(base for base in cls.__mro__ if is_user_class(base))
        try:
            _BASES[cls] = found
        except TypeError:
            pass
    return found


def program_definitions(cls: type, skipped: frozenset = frozenset()):
    """(class, name, value) of what the program's classes in `cls`'s MRO define (their
    `vars`), but the names in `skipped`."""
    for base in program_bases(cls):
        for name, value in list(vars(base).items()):
            if name not in skipped:
                yield base, name, value
