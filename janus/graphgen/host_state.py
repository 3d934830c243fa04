"""Host state library code changes while janus traces, which a graph would not change.

    keras.layers.Dropout(0.5)       Keras seeds the layer from Python's `random`
                                    (`random.randint`) and numbers its name (`dropout_3`)

Plain Python changes these on every call that runs such code; a graph runs it once, while
tracing (and a trace that fails is run again plainly: twice). So a trace that changed them
is refused, and they are put back as they were before it: the user's `random` stream and
the names of later Keras objects stay plain Python's. (The user's own `random` calls are
graph breaks: transform/breaks.py.)
"""
from __future__ import annotations

import random

try:
    from keras.src.backend.common import global_state as _keras_state
except ImportError:  # pragma: no cover - Keras is a dependency of TensorFlow 2.16+
    _keras_state = None


def _keras_names():
    if _keras_state is None:
        return None
    return _keras_state.get_global_attribute("object_name_uids")


class HostState:
    """What a trace may change: taken before it; `restore` after it."""

    def __init__(self):
        self.random = random.getstate()
        names = _keras_names()
        self.names = None if names is None else dict(names)

    def restore(self) -> str | None:
        """Put back what changed; what it was (for a refusal), or None."""
        changed = []
        if random.getstate() != self.random:
            random.setstate(self.random)
            changed.append("draws from Python's `random`")
        names = _keras_names()
        if names is not None and dict(names) != (self.names or {}):
            names.clear()
            names.update(self.names or {})
            changed.append("numbers the names of the Keras objects it makes")
        return " and ".join(changed) or None
