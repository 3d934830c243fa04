"""Calls that read or change the world outside the program: refused (F432).

A graph made from a trace would keep what the call answered then, and make its effect
once; plain Python asks the world again on every call:

    if os.path.exists("STOP"): ...           posixpath's: the file appears later
    s = float(pathlib.Path(p).read_text())   the file is rewritten between calls
    n = len(tf.io.gfile.listdir(d))          TensorFlow's file functions are host code,
    w = np.load("w.npy")                     not ops; numpy's file functions alike
    np.save(path, a)                         a file written once, while tracing
    sep = locale.localeconv()["decimal_point"]   the process's locale, set between calls

Refused (the line runs in Python, a graph break): functions and methods of the standard
library's modules that reach files, directories, processes, sockets and the interpreter's
own state (`_MODULES`), numpy's file functions, TensorFlow's file and checkpoint-state
functions. `tf.io.read_file`, `tf.io.write_file` are ops: they run when the graph runs.
"""
from __future__ import annotations

from janus import user_attributes
from janus.graphgen import process_state

_MODULES = frozenset({
    "os", "posix", "nt", "glob", "shutil", "tempfile",
    "subprocess", "socket", "select", "selectors", "ssl", "sqlite3", "urllib", "http",
    "ftplib", "smtplib", "platform", "getpass", "pwd", "grp", "resource", "signal", "mmap",
    "fcntl", "termios", "zipfile", "tarfile", "gzip", "bz2", "lzma", "csv", "configparser",
    "shelve", "dbm", "linecache", "fileinput", "multiprocessing", "concurrent", "queue",
    "asyncio", "tracemalloc", "io", "_io", "codecs", "marshal", "locale", "_locale"})
"""Standard modules (top-level names) whose functions reach the world outside (`locale`:
the process's settings, `locale.getlocale()`, `setlocale`: F434; not `gc`, `sys`: their
getters are read per call, their setters refused, by process_state.py)."""

_PATHS = frozenset({"posixpath", "ntpath", "genericpath", "pathlib"})
_PURE_PATHS = frozenset({
    "join", "split", "splitext", "splitdrive", "basename", "dirname", "normpath",
    "normcase", "commonpath", "commonprefix", "isabs", "joinpath", "with_name",
    "with_suffix", "with_stem", "relative_to", "is_relative_to", "as_posix", "as_uri",
    "match", "full_match", "is_absolute", "is_reserved", "with_segments", "__truediv__",
    "__rtruediv__", "__str__", "__fspath__", "PurePath", "PurePosixPath",
    "PureWindowsPath", "Path", "PosixPath", "WindowsPath"})
"""os.path's and pathlib's functions of the text alone (`os.path.join`, `Path(d) / "x"`,
`p.with_suffix(".npy")`); their others ask the file system (`exists`, `getsize`,
`read_text`, `abspath`: the working directory) and are refused."""

_TENSORFLOW = ("tensorflow.python.lib.io", "tensorflow.python.platform.gfile",
               "tensorflow.python.checkpoint.checkpoint_management",
               "tensorflow.python.training.checkpoint_management")
"""TensorFlow's host file functions (`tf.io.gfile.*`, `tf.train.latest_checkpoint`)."""

_NUMPY_FILES = frozenset({"load", "save", "savez", "savez_compressed", "loadtxt", "savetxt",
                          "genfromtxt", "fromfile", "fromregex", "memmap", "tofile", "dump"})
_LOADS = frozenset({"load", "dump"})
"""numpy's file functions (also `a.tofile`, `a.dump`), and json's/pickle's file readers
and writers (their `loads`/`dumps` of a string are pure)."""


def reason(fn) -> str:
    """Why a call of `fn` is refused as reaching the outside world ("" when it is not)."""
    module = user_attributes.get(fn, "__module__", None)
    name = user_attributes.get(fn, "__name__", None)
    owner = user_attributes.get(fn, "__self__", None)
    if not isinstance(module, str):
        module = ""
    if not isinstance(name, str):
        name = ""
    if not module and owner is not None:  # (`a.tofile(f)`: a C method, no module)
        module = type(owner).__module__ or ""
    top = module.split(".")[0]
    outside = top in _MODULES or module.startswith(_TENSORFLOW) or \
        top in _PATHS and name not in _PURE_PATHS or \
        top == "numpy" and name in _NUMPY_FILES or \
        top in ("json", "pickle") and name in _LOADS
    if not outside or any(fn is getter for getter in process_state.getters()):
        return ""  # (`os.getcwd()`: read again on every call, process_state.py)
    shown = user_attributes.get(fn, "__qualname__", None) or name or type(fn).__name__
    return (f"calls {module + '.' if module else ''}{shown}, which reads or changes the "
            "world outside the program (files, the environment, other processes): a "
            "graph would keep what it answered while tracing, and make its effect once")
