"""F420: describing a profiled call's arguments (a split function's segment gets the
live locals) looked each dict key up again: a key of the program's class ran its
`__hash__`/`__eq__` (counting, in the program) once more than plain Python did."""
from janus.profiler import describe_value


class Key:
    uses = 0

    def __hash__(self):
        Key.uses += 1
        return 1

    def __eq__(self, other):
        Key.uses += 1
        return other is self


def test_a_dict_keyed_by_the_programs_object_is_described_without_its_dunders():
    key = Key()
    table, other = {key: 1.0, "lr": 0.1}, {Key(): 1.0, "lr": 0.1}
    Key.uses = 0
    described = describe_value(((table,), {}))
    assert Key.uses == 0
    assert described == describe_value(((other,), {}))  # (the key by its type)
    assert Key.uses == 0
    assert describe_value({"a": 1, 2: [3]}) == ("dict", ("a", 2),
                                                (("int", 1), ("list", 1, (("int", 3),))))
