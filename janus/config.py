"""Global configuration: defaults, environment overrides, per-function options."""
from __future__ import annotations

import dataclasses
import os


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclasses.dataclass
class Config:
    """Knobs shared by every jitted function (per-function options override them).

    profile_calls: calls run imperatively under the profiler before a graph is made.
    max_specializations: graphs kept per function; past it janus warns once and
        runs the most general graph or eager.
    failures_to_generalize: failures of the same assumption before janus
        regenerates a more general graph.
    max_generation_failures: failed graph generations before janus gives up on
        a function and runs it eagerly for good.
    strict: raise `JanusFallbackError` instead of falling back to eager.
    disabled: run every function plainly (also `JANUS_DISABLE=1`).
    max_profile_values: distinct Python values remembered per profiled site.
    mixed: when a function cannot become a graph, still run the user functions it
        calls as their own graphs and optimizer updates as one graph.
    segments: when a function cannot become one graph because of some statements
        (graph breaks), split it there: the stretches between them run as graphs
        of their own, the breaks in Python (janus/fallback/segmented.py); on by
        default, `JANUS_SEGMENTS=0` turns it off.
    xla: compile stable static-shape specializations with XLA in a background thread
        and keep XLA where real calls measure it faster (janus/graphgen/xla.py). Off by
        default (`JANUS_XLA=1` turns it on): XLA's kernels round differently from
        TensorFlow's (a training run drifts from plain Python's losses beyond float32
        noise) and clamp out-of-range gather indices where TensorFlow raises.
    plain_trial: measure a small specialization's graph against the function run
        plainly and run the calls it fits plainly where the graph does not pay
        (janus/graphgen/plain_trial.py); on by default, `JANUS_PLAIN_TRIAL=0` turns it
        off (the tests do: they assert on graph calls of tiny functions).
    raise_internal_errors: an error in janus's own machinery raises
        `janus.errors.JanusInternalError` instead of running the call plainly
        (also `JANUS_RAISE_INTERNAL=1`; for tests).
    max_reasons: distinct guard-failure / fallback / internal-error descriptions kept
        per function (stats and explain); later ones are counted under "(other)".
    max_plan_history: generalization steps remembered per function (to retreat to).
    max_list_items: a heap list of Python numbers longer than this is fed to a graph as
        one tensor; where it cannot be (read item by item), janus makes no graph of the
        function (its trace would grow with the list: graphgen/number_lists.py).
    trusted_packages: installed packages (top-level names, `("einops",)`) whose
        functions the program vouches keep no state between calls: a trace runs them as
        it runs TensorFlow's. Any other package's Python code (not TensorFlow's, Keras',
        numpy's, the standard library's) is a graph break: graphgen/third_party.py.
        Process-wide only.
    """

    profile_calls: int = 2
    max_specializations: int = 8
    failures_to_generalize: int = 2
    max_generation_failures: int = 3
    strict: bool = False
    disabled: bool = dataclasses.field(default_factory=lambda: _env_flag("JANUS_DISABLE"))
    max_profile_values: int = 8
    mixed: bool = True
    segments: bool = dataclasses.field(default_factory=lambda: os.environ.get(
        "JANUS_SEGMENTS", "1").strip().lower() not in ("0", "false", "no", "off"))
    xla: bool = dataclasses.field(default_factory=lambda: os.environ.get(
        "JANUS_XLA", "0").strip().lower() not in ("0", "false", "no", "off", ""))
    plain_trial: bool = dataclasses.field(default_factory=lambda: os.environ.get(
        "JANUS_PLAIN_TRIAL", "1").strip().lower() not in ("0", "false", "no", "off"))
    raise_internal_errors: bool = dataclasses.field(
        default_factory=lambda: _env_flag("JANUS_RAISE_INTERNAL"))
    max_reasons: int = 64
    max_plan_history: int = 16
    max_list_items: int = 1000
    trusted_packages: tuple = ()

    def __setattr__(self, name, value):
        object.__setattr__(self, name, _checked(name, value))
        if name in self.__dict__:  # a change, not __init__ (see `version`)
            _changes[0] += 1

    @staticmethod
    def version() -> int:
        """Grows whenever a field of an existing Config changes: derived configs (a
        function's options applied) can be cached until then."""
        return _changes[0]

    def replace(self, **changes) -> "Config":
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise TypeError(f"unknown janus option(s): {', '.join(sorted(unknown))}")
        if "trusted_packages" in changes:
            raise TypeError("janus option trusted_packages is process-wide: set "
                            "janus.config.trusted_packages instead of a function's option")
        return dataclasses.replace(self, **changes)


_AT_LEAST = {"profile_calls": 0, "max_specializations": 1, "failures_to_generalize": 1,
             "max_generation_failures": 1, "max_profile_values": 1, "max_reasons": 1,
             "max_plan_history": 1, "max_list_items": 1}
"""The int options and their smallest value; the other options are bools."""


def _checked(name: str, value):
    """`value` for option `name`, or a TypeError/ValueError naming the option and what it
    takes (a string `"false"` would have been true; `"8"` failed every call later)."""
    fields = {f.name for f in dataclasses.fields(Config)}
    if name not in fields:
        raise AttributeError(f"janus has no option {name!r} (options: "
                             f"{', '.join(sorted(fields))})")
    if name in _AT_LEAST:
        if type(value) is not int:
            raise TypeError(f"janus option {name} takes an int, got {value!r} "
                            f"({type(value).__name__})")
        if value < _AT_LEAST[name]:
            raise ValueError(f"janus option {name} takes an int of at least "
                             f"{_AT_LEAST[name]}, got {value}")
        return value
    if name == "trusted_packages":
        if isinstance(value, str) or not isinstance(value, (tuple, list, set, frozenset)) \
                or not all(type(v) is str and v and "." not in v for v in value):
            raise TypeError(f"janus option {name} takes a tuple of top-level package names "
                            f"(`('einops',)`), got {value!r}")
        return tuple(sorted(set(value)))
    if type(value) is not bool and not (type(value) is int and value in (0, 1)):
        raise TypeError(f"janus option {name} takes True or False, got {value!r} "
                        f"({type(value).__name__})")
    return bool(value)


_changes = CHANGES = [0]  # (CHANGES: read without a call by a settled function's calls)
config = Config()
"""The process-wide defaults; change attributes to affect functions jitted later."""
