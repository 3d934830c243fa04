"""Guards read each prefix of their sources once per call (graphgen/guards.py): a Keras
model's `layers` is a property computed on every read, and the guards on a user layer's
sublayers (`args[0].model.layers[3].bn1`, `...layers[3].conv1`, ...) read it each: a
ResNet step's guard check went from 4 us to 190 us when its blocks' `call` was converted."""
from janus.graphgen.guards import Guard, GuardSet
from janus.graphgen.sources import arg


class Model:
    def __init__(self):
        self.reads = 0
        self._blocks = [Block(), Block()]

    @property
    def layers(self):
        self.reads += 1
        return list(self._blocks)


class Block:
    def __init__(self):
        self.a, self.b = object(), object()


def test_a_property_on_the_way_is_read_once_per_check_and_guards_still_fail():
    model = Model()
    blocks = model.layers
    guards = [Guard("id", arg(0).attr("layers").item(k).attr(name), getattr(blocks[k], name))
              for k in range(2) for name in ("a", "b")]
    check = GuardSet(guards, {}, ()).check
    model.reads = 0
    assert check((model,), {}) == -1
    assert model.reads == 1
    blocks[1].b = object()
    assert check((model,), {}) == 3
