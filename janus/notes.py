"""janus's notes to the program's user (JanusWarning, CacheWarning): warnings, through
the program's filters (which may ignore or record them), never raised into the program.

A filter that makes warnings errors (`-W error`, `simplefilter("error")`, pytest's
`filterwarnings = error`) would otherwise turn janus's note into an exception of the
call that met it: a call plain Python returns from would raise (F418). The note is then
written on stderr instead, and the call goes on.
"""
from __future__ import annotations

import sys
import warnings


def note(message: str, category: type[Warning], stacklevel: int = 1) -> None:
    """`warnings.warn(message, category, stacklevel)` as its caller would make it, but a
    filter's error is said on stderr instead of raised."""
    try:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
    except category:
        print(f"{category.__name__}: {message}", file=sys.stderr)
