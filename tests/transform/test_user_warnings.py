"""A warning's `stacklevel` names the same frame under janus as in plain Python, on every
kind of run (profiled, plain after a failed generation, split) (F406)."""
import functools
import warnings

import tensorflow as tf

import janus


def caught_step(x):
    with warnings.catch_warnings(record=True) as caught:  # (janus runs this plainly or split)
        warnings.simplefilter("always")
        y = x * 2.0
        warnings.warn("every call", UserWarning)
    warnings.warn("outside", DeprecationWarning, stacklevel=2)
    return y + len(caught)


def helper_warns(x):
    warnings.warn("from the helper", UserWarning, stacklevel=3)
    return x + 1.0


def helper_with_try(x):  # (janus runs a helper with a `try` plainly from converted code)
    try:
        warnings.warn("from a plain helper", UserWarning, stacklevel=3)
    finally:
        x = x - 1.0
    return x


def graph_step(x):
    y = helper_warns(x * 2.0)
    y = helper_with_try(y)
    warnings.warn("in the step", UserWarning, stacklevel=2)
    return y


def call_site(fn, x):
    return fn(x)  # (the frame a `stacklevel=2` in the step names)


def _shown(fn, calls: int, action: str) -> list:
    """The warnings shown over `calls` calls of `fn` (from `call_site`): category, message,
    the line named, the module registry's entry count."""
    shown = []
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter(action)
        original = warnings.showwarning
        registry = globals().setdefault("__warningregistry__", {})
        registry.clear()
        warnings.showwarning = lambda m, c, f, ln, *rest: shown.append(
            (c.__name__, str(m), f, ln)) if c is not janus.JanusWarning else None
        try:
            for i in range(calls):
                call_site(fn, tf.constant([float(i)]))
                shown.append(("calls", i, len([k for k in registry if k != "version" and
                                           k[1] is not janus.JanusWarning])))
        finally:
            warnings.showwarning = original
    return shown


def test_a_caller_level_warning_names_the_caller_on_every_run():
    for action in ("always", "default", "once"):
        plain = _shown(caught_step, 6, action)
        assert _shown(janus.jit(caught_step), 6, action) == plain, action


def test_warnings_of_a_step_and_its_helper_name_plain_python_s_frames():
    for action in ("always", "default"):
        plain = _shown(graph_step, 6, action)
        jitted = janus.jit(graph_step)
        assert _shown(jitted, 6, action) == plain, action


def split_step(x):
    acc = x * 0.5
    if tf.reduce_sum(acc) > 1.0:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            helper_warns(acc)  # (names `call_site`'s line: through the split function)
        acc = acc + float(len(caught))
    host = acc.numpy()  # (a graph break: the function runs split)
    return acc + float(host.sum())


def test_a_split_run_s_warnings_name_plain_python_s_frames():
    for action in ("always", "default"):
        plain = _shown(split_step, 6, action)
        jitted = janus.jit(split_step)
        assert _shown(jitted, 6, action) == plain, action
        assert janus.stats(jitted).segmented_calls > 0


def deep_helper(level):
    warnings.warn("from a deep helper", UserWarning, stacklevel=level)


def profiled_segment_step(x, xs):
    acc = x * 0.5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        deep_helper(3)  # (names `call_site`'s line: through the segment's profiled copy)
    mine = [w for w in caught if w.category is UserWarning]  # (janus's own notes: F418)
    acc = acc + float(len(mine)) + float(mine[0].lineno)
    for item in xs:  # (a `return` in a loop: the function runs split)
        return acc + item
    return acc


def test_a_profiled_segment_s_warnings_name_plain_python_s_frames():
    xs = [tf.constant([1.0])]
    plain_fn = functools.partial(profiled_segment_step, xs=xs)
    plain = [call_site(plain_fn, tf.constant([float(i)])).numpy() for i in range(12)]
    jitted = functools.partial(janus.jit(profiled_segment_step), xs=xs)
    got = [call_site(jitted, tf.constant([float(i)])).numpy() for i in range(12)]
    assert [list(v) for v in got] == [list(v) for v in plain]
