"""How an attribute the trace dispatched on is found, guarded (graphgen/attribute_dispatch.py,
F396): a config's `__getattr__` answering None for a key set later, a wrapper delegating
through `__getattr__` shadowed by its own attribute, a property or descriptor replaced on
the class (or on a subclass before it), a non-data descriptor shadowed by the instance.
Each side has its own classes (they are changed between calls)."""
import tensorflow as tf

from tests.differential import assert_same


def _work(y):
    for _ in range(6):  # (enough work that janus makes a graph of it)
        y = y * 1.01 + 0.1
    return y


def _classes():
    class Cfg:
        def __init__(self, **kw):
            self.__dict__.update(kw)

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return None

    class Base:
        def __init__(self):
            self.base = 2.0

        @property
        def scale(self):
            return self.base * 2

    class Net(Base):
        pass

    class Doubled:
        """A non-data descriptor of the program's."""

        def __get__(self, obj, cls):
            return obj.base * 2

    class Holder:
        def __init__(self):
            self.base = 3.0

        twice = Doubled()

    class Inner:
        def __init__(self, k):
            self.k = k

    class Wrapper:
        def __init__(self, inner):
            self.module = inner

        def __getattr__(self, name):
            return getattr(self.module, name)

    return Cfg, Base, Net, Doubled, Holder, Inner, Wrapper


class State:
    def __init__(self):
        (self.Cfg, self.Base, self.Net, self.Doubled, self.Holder, self.Inner,
         self.Wrapper) = _classes()
        self.cfg = self.Cfg(lr=0.1)
        self.net = self.Net()
        self.holder = self.Holder()
        self.wrapped = self.Wrapper(self.Inner(2.0))
        self.w = tf.Variable([1.0, 2.0])
        self.ema = tf.Variable([1.0, 2.0])


def _same_over_changes(step, change, calls: int, graph_calls: int) -> None:
    """`step` over `calls` calls, `change(s, i)` changing the classes or objects before
    call `i`: plain Python's results and heap on every call, and at least `graph_calls`
    calls run as graphs (the guards let graphs run between the changes)."""
    stats = assert_same(step, [lambda s, i=i: change(s, i) for i in range(calls)],
                        make_state=State)
    assert stats.graph_calls >= graph_calls, stats


def config_step(s, x):
    s.w.assign_sub(s.cfg.lr * x)
    if s.cfg.use_ema:
        s.ema.assign(0.9 * s.ema + 0.1 * s.w)
    if s.cfg.grad_scale is not None:
        s.w.assign(s.w * s.cfg.grad_scale)
    return _work(s.w)


def _config_change(s, i):
    if i == 4:
        s.cfg.use_ema = True  # (on the instance: `__getattr__` no longer asked)
    if i == 7:
        s.Cfg.grad_scale = 0.5  # (on the class)
    if i == 10:
        del s.cfg.use_ema
    return s, tf.constant([0.1, 0.2])


def test_a_getattr_fallback_s_key_set_later_is_read():
    _same_over_changes(config_step, _config_change, calls=13, graph_calls=6)


def property_step(s, x):
    return _work(x * s.net.scale)


def _property_change(s, i):
    if i == 3:
        s.Base.scale = property(lambda self: self.base * 100)  # (replaced)
    if i == 5:
        s.Net.scale = property(lambda self: self.base * 7)  # (a subclass's first)
    if i == 7:
        s.Net.scale = 0.5  # (a plain class attribute)
    if i == 9:
        del s.Net.scale
    return s, tf.constant([1.0, float(i)])


def test_a_property_replaced_on_the_class_is_read():
    _same_over_changes(property_step, _property_change, calls=12, graph_calls=5)


def made_step(s, x):
    return _work(x * s.Net().scale)


def _made_change(s, i):
    # (not `Net.scale = 0.5`: a plain class attribute read through an object made in the
    # call is F394's)
    if i == 4:
        s.Base.scale = property(lambda self: self.base * 100)
    if i == 8:
        s.Net.scale = property(lambda self: self.base * 7)
    if i == 12:
        del s.Net.scale
    return s, tf.constant([1.0, float(i)])


def test_a_property_of_an_object_made_in_the_call_replaced_on_the_class():
    _same_over_changes(made_step, _made_change, calls=16, graph_calls=5)


def descriptor_step(s, x):
    return _work(x * s.holder.twice)


def _descriptor_change(s, i):
    if i == 4:
        s.holder.twice = 10.0  # (the instance's own wins over a non-data descriptor)
    if i == 8:
        del s.holder.twice
    if i == 12:
        s.Holder.twice = property(lambda self: self.base * 3)
    return s, tf.constant([1.0, float(i)])


def test_a_descriptor_shadowed_or_replaced_is_read():
    _same_over_changes(descriptor_step, _descriptor_change, calls=16, graph_calls=4)


def wrapper_step(s, x):
    return _work(x * s.wrapped.k)


def _wrapper_change(s, i):
    if i == 3:
        s.wrapped.module.k = 3.0
    if i == 5:
        s.wrapped.k = 10.0  # (the wrapper's own now: `__getattr__` no longer asked)
    if i == 8:
        s.Wrapper.__getattr__ = lambda self, name: 0.25
        del s.wrapped.k
    return s, tf.constant([1.0, float(i)])


def test_a_wrapper_delegating_through_getattr_shadowed_later():
    _same_over_changes(wrapper_step, _wrapper_change, calls=11, graph_calls=4)
