"""janus/notes.py: janus's notes (JanusWarning, CacheWarning) go through the program's
warning filters but are never raised into the program (F418): a call under
`simplefilter("error")` returns what plain Python returns."""
import warnings

import tensorflow as tf

import janus
from janus import notes
from janus.cache.store import CacheWarning
from janus.function import JanusWarning


class Registry:
    def __init__(self):
        self.scale = 2.0


REG = Registry()


def step(x):
    found = vars(REG)["scale"]  # (a line janus runs in Python: it says so once)
    return x * found


def test_a_note_under_an_error_filter_is_said_on_stderr_not_raised(capsys):
    jitted = janus.jit(step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = [float(jitted(tf.constant(float(i)))) for i in range(6)]
    assert results == [float(step(tf.constant(float(i)))) for i in range(6)]
    assert "JanusWarning: janus makes no single graph of step" in capsys.readouterr().err


def test_a_note_is_a_warning_the_filters_may_show_or_ignore():
    for category in (JanusWarning, CacheWarning):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            notes.note("said", category)
        assert [(w.category, str(w.message)) for w in seen] == [(category, "said")]
        assert seen[0].filename == __file__  # (the caller's line, as warnings.warn's)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("ignore")
            notes.note("said", category)
        assert seen == []
