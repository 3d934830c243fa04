"""Installers of janus's process-wide patches of TensorFlow's and Keras' code, run once.

janus wraps a few library functions the first time a trace needs them (`tf.constant`'s
converter, `BiasAdd`'s gradient, graph tensors' `__iter__`...). `once` makes such an
installer idempotent and thread-safe:

    @once
    def install() -> None:
        original = constant_op._constant_impl
        constant_op._constant_impl = wrapped(original)

    install(); install()      # wraps once; a second thread waits for the first to finish

The installer counts as done once its body returned: if it raised, the next call runs it
again. No janus imports (every layer installs its patches).
"""
from __future__ import annotations

import functools
import threading
from contextlib import AbstractContextManager
from typing import Callable


def once(install: Callable[..., None] | None = None, *,
         lock: AbstractContextManager | None = None):
    """`install`, run at most once per process (later calls return at once). `lock`: the
    lock the body runs under (a new one by default; one the module shares with code that
    must not run while the patch goes in)."""
    if install is None:
        return functools.partial(once, lock=lock)
    guard = lock if lock is not None else threading.Lock()
    done = False

    @functools.wraps(install)
    def install_once(*args, **kwargs) -> None:
        nonlocal done
        if done:
            return
        with guard:
            if done:
                return
            install(*args, **kwargs)
            done = True

    return install_once
