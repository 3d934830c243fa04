"""transform/runtime.user_file: which source files are the program's (F423: any path
holding "/janus" was, so a project under `~/janus-experiments/` had every library of its
venv taken for its own code, and a test's library module under a `/tmp/janus-...`
directory for the program's)."""
import os

import janus
from janus.transform.runtime import user_file

_JANUS = os.path.dirname(os.path.abspath(janus.__file__))


def test_libraries_are_libraries_wherever_the_project_lives():
    for venv in ("/home/me/janus-experiments/.venv", "/tmp/janus-tests-x1/tmp0/t0",
                 "/srv/janus/env"):
        assert not user_file(f"{venv}/lib/python3.11/site-packages/keras/layers.py"), venv
        assert not user_file(f"{venv}/site-packages/probe_meeting.py"), venv


def test_the_program_s_files_are_its_own():
    assert user_file("/home/me/janus-experiments/train.py")
    assert user_file("/home/me/project/model.py")
    assert not user_file("<string>")


def test_janus_s_own_files_are_classified_as_before():
    assert user_file(os.path.join(_JANUS, "function.py"))
