"""A library module a test writes: a file under a `site-packages` directory (janus takes
its code for a library's, not the program's: transform/runtime.py `user_file`), on the
path for the test's duration and imported afresh."""
from __future__ import annotations

import importlib
import sys
import types


def library_module(tmp_path, monkeypatch, name: str, source: str) -> types.ModuleType:
    """The module `name` of `source`, written under `tmp_path/site-packages` and imported
    (the `tmp_path` and `monkeypatch` fixtures of the test)."""
    root = tmp_path / "site-packages"
    root.mkdir(exist_ok=True)
    (root / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(root))
    sys.modules.pop(name, None)  # (another test's module of that name: this one's)
    return importlib.import_module(name)
