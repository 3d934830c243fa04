"""janus/patches.py `once`: an installer's body runs once per process, whichever thread
calls it first (the others wait for it), again only after it raised."""
import threading
import time

import pytest

from janus.patches import once


def test_the_body_runs_once_and_keeps_its_name():
    runs = []

    @once
    def install(value):
        """Doc."""
        runs.append(value)

    install(1)
    install(2)
    assert runs == [1]
    assert install.__name__ == "install" and install.__doc__ == "Doc."


def test_threads_calling_together_wait_for_the_one_body():
    runs, after = [], []

    @once
    def install():
        time.sleep(0.05)
        runs.append(1)

    def call():
        install()
        after.append(len(runs))  # (returned only once the body ran)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert runs == [1] and after == [1] * 8


def test_a_body_that_raised_runs_again():
    runs = []

    @once
    def install():
        runs.append(1)
        if len(runs) == 1:
            raise RuntimeError("first")

    with pytest.raises(RuntimeError):
        install()
    install()
    install()
    assert runs == [1, 1]


def test_the_body_runs_under_the_lock_given():
    lock = threading.RLock()
    held = []

    @once(lock=lock)
    def install():
        held.append(lock._is_owned())

    install()
    assert held == [True]
