"""An object that counts its own death in its state (`state.freed`): tests of when a
call's objects die (tests/graphgen/test_lifetimes.py, tests/transform/test_store_temporaries.py)
compare that count, read inside the step, with plain Python's."""


class Freed:
    def __init__(self, state, value):
        self.state, self.value = state, value

    def __del__(self):
        self.state.freed += 1
