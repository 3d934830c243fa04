"""Namedtuples read from the arguments or the heap (`x, y = batch`, `w, b =
self.params`, `lr, wd = cfg`): code janus does not convert (unpacking, `zip`, `*batch`,
`tf.nest`) reads their items in C, so they are imported item by item like tuples (the
graph kept the traced batch: from the third call on every call trained on it). Other
tuple subclasses refuse. Compared with plain Python call by call."""
import collections
import dataclasses
import operator

import tensorflow as tf

from tests.differential import assert_same

Batch = collections.namedtuple("Batch", ["x", "y"])
Config = collections.namedtuple("Config", ["lr", "decay"])


class Model:
    def __init__(self):
        self.w = tf.Variable([0.5, -0.5])
        self.params = Batch(tf.constant([1.0, 2.0]), tf.constant(0.5))
        self.log = []


def unpacked(m, batch, cfg):
    x, y = batch
    lr, decay = cfg
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((m.w * x - y) ** 2)
    (grad,) = tape.gradient(loss, [m.w])
    m.w.assign_sub(lr * decay * grad)
    scale, shift = m.params
    return loss, tf.add(*batch) * scale + shift, [t * 2.0 for t in batch], \
        tf.nest.flatten(batch), batch[::-1], lr * 2


def calls(n):
    return [(Batch(tf.constant([float(i), 1.0]), tf.constant(float(i % 3))),
             Config(0.1 / (i + 1), 0.5 + 0.1 * (i % 2))) for i in range(n)]


def test_namedtuple_items_are_the_calls():
    stats = assert_same(unpacked, calls(10), make_state=Model)
    assert stats.graph_calls >= 4


class Pair(tuple):
    """A tuple subclass that is no namedtuple."""


@dataclasses.dataclass
class Hyper:
    lr: float
    w: tf.Tensor


def subclass(m, x, pair, hyper):
    a, b = pair
    return x * a + b


def as_dict(m, x, pair, hyper):
    settings = dataclasses.asdict(hyper)
    return x * settings["lr"] + tf.reduce_sum(settings["w"])


def getter(m, x, pair, hyper):
    nearest = min([hyper, hyper], key=operator.attrgetter("lr"))
    return x * operator.attrgetter("lr")(hyper) + nearest.w


def test_tuple_subclasses_and_library_readers_of_objects_stay_plain_pythons():
    for fn in (subclass, as_dict, getter):
        entries = [(tf.constant(float(i)), Pair((tf.constant(2.0), tf.constant(float(i))))
                    if fn is subclass else None, Hyper(0.1 * i, tf.constant([float(i)])))
                   for i in range(8)]
        assert_same(fn, entries, make_state=Model)


HP = collections.namedtuple("HP", ["gp", "steps"])


class Trainer:
    def __init__(self):
        self.w = tf.Variable(1.0)
        self.hp = HP(0.1, 2)


def fed_items_by_attribute(t, x, lr_batch):
    t.w.assign_add(t.hp.gp * x)               # item 0 by attribute
    t.w.assign_sub(t.hp[0] * 0.5 * x)         # ... and by index
    scaled = lr_batch.lr * lr_batch.x         # an argument's fed float, by attribute
    return t.w + 0.0, scaled + float(t.hp.steps), lr_batch.lr


LrBatch = collections.namedtuple("LrBatch", ["x", "lr"])


def test_fed_namedtuple_items_read_by_attribute_keep_their_graph():
    """F252: a namedtuple's Python number, fed once it changed (`HP(0.1)` then
    `HP(0.2)`), read as `hp.gp`, was imported a second time as the stand-in it had
    become, under a type guard on the stand-in no call passed: 8 generations, then
    plain Python for good. The same for a namedtuple argument whose float varies."""
    def entry(i):
        def make(t):
            if i in (3, 6):
                t.hp = HP(0.1 * i, 2)
            return (t, tf.constant(1.0), LrBatch(tf.constant(2.0), 0.1 / (1 + i)))
        return make
    stats = assert_same(fed_items_by_attribute, [entry(i) for i in range(14)],
                        make_state=Trainer)
    assert stats.generations <= 3 and stats.graph_calls >= 8, stats
