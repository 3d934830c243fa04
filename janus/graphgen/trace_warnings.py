"""Warnings made while janus traces, shown as Python's warning machinery would show them.

    with recorder.tracing():                   (each attempt of one generation)
        concrete = function.get_concrete_function()
    recorder.refuse_overflow()                 (the final attempt: F158)
    recorder.show()                            (after a graph was made)

`warnings.catch_warnings` would reset Python's record of the warnings already shown
once per location (it marks the filters changed, which clears every module's
`__warningregistry__`): a warning plain Python shows once was shown again after each
janus generation anywhere in the process (F199). Here the filters stay as they are and
only `warnings.showwarning` is borrowed while tracing; the modules' registries are put
back as they were before each attempt, so that only the final trace's warnings count:
shown once its graph is made; a generation that fails shows none (the call then runs
plainly, and warns as plain Python does). A float beyond float32 made a constant is
caught by numpy's error callback instead (its RuntimeWarning may have been shown
before: the registry would hide it); the program's `np.geterr()` / `np.geterrcall()` in
the trace say its own settings (`program_geterr`: process_state.ANSWERED).
"""
from __future__ import annotations

import contextlib
import sys
import threading
import warnings

import numpy as np

from janus.errors import ConversionError

_REGISTRY = "__warningregistry__"


def _registries() -> dict:
    """Each module's record of the warnings it showed once, copied."""
    return {name: dict(registry) for name, module in list(sys.modules.items())
            if isinstance(registry := getattr(module, _REGISTRY, None), dict)}


def _restore(saved: dict) -> None:
    for name, module in list(sys.modules.items()):
        registry = getattr(module, _REGISTRY, None)
        if isinstance(registry, dict) and registry != saved.get(name, {}):
            registry.clear()
            registry.update(saved.get(name, {}))


_outer = threading.local()


def _outer_stack() -> list:
    stack = getattr(_outer, "stack", None)
    if stack is None:
        stack = _outer.stack = []
    return stack


def program_geterr() -> dict:
    """`np.geterr()` as the program has it: inside a trace, the settings before the trace's
    own `np.errstate` (its `over="call"` is janus's, F425)."""
    stack = getattr(_outer, "stack", None)
    return dict(stack[0][0]) if stack else np.geterr()


def program_geterrcall():
    """`np.geterrcall()` as the program has it (not the trace's overflow callback)."""
    stack = getattr(_outer, "stack", None)
    return stack[0][1] if stack else np.geterrcall()


class Recorder:
    """The warnings of one generation's traces."""

    def __init__(self):
        self.caught: list = []
        self.overflowed = False
        self.saved: dict | None = None

    @contextlib.contextmanager
    def tracing(self):
        if self.saved is None:
            self.saved = _registries()
        else:  # (an earlier attempt's warnings do not count: the registries as before)
            _restore(self.saved)
        self.caught, self.overflowed = [], False
        shown = warnings.showwarning

        def keep(message, category, filename, lineno, file=None, line=None):
            self.caught.append((shown, message, category, filename, lineno, file, line))

        def overflow(kind, flag):
            self.overflowed = True

        warnings.showwarning = keep
        outer = _outer_stack()
        outer.append((np.geterr(), np.geterrcall()))
        try:
            with np.errstate(over="call", call=overflow):
                yield self
        finally:
            outer.pop()
            warnings.showwarning = shown

    def refuse_overflow(self) -> None:
        """A Python float beyond float32 made a constant while the last trace ran: TF's
        graph rounds it to inf, where eager TF raises ValueError (no dtype asked) or
        rounds it without a warning (F158): the call runs plainly."""
        if self.overflowed:
            raise ConversionError("a Python number beyond float32 made a constant while "
                                  "tracing (TF's graph and eager TF convert it otherwise)")

    def show(self) -> None:
        """The final trace's warnings, its graph made."""
        caught, self.caught = self.caught, []
        for shown, message, category, filename, lineno, file, line in caught:
            shown(message, category, filename, lineno, file, line)

    def forget(self) -> None:
        """The generation failed: its traces' warnings unshown, the registries as before."""
        self.caught = []
        if self.saved is not None:
            _restore(self.saved)
