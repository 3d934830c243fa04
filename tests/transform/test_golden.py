"""Golden tests: the converted code and a guard set, rendered as text."""
import tensorflow as tf

import janus
from janus.transform import convert

SCALE = 2.0


def step(self, xs):
    total = self.total
    for x in xs:
        total += x * SCALE
    if tf.reduce_sum(total) > 0:
        self.total = total
    return total


EXPECTED_CODE = '''
def janus__factory(janus__):

    def step(self, xs):
        total = janus__.ld_attr(self, 'total')
        total = janus__.read(lambda: total)
        x = janus__.read(lambda: x)

        def janus__body_1(janus__item):
            nonlocal total, x
            x = janus__item
            total = janus__.aug('+=', total, x * janus__.ld_global('SCALE', SCALE))

        def janus__get_2():
            return (janus__.read(lambda: total), janus__.read(lambda: x))

        def janus__set_3(janus__values):
            nonlocal total, x
            total, x = janus__values
        janus__.for_stmt(0, xs, janus__body_1, janus__get_2, janus__set_3, ('total', 'x'))
        if x is janus__.UNDEFINED:
            del x

        def janus__if_true_4():
            janus__.st_attr(self, 'total', total)

        def janus__if_false_5():
            pass

        def janus__get_6():
            return ()

        def janus__set_7(janus__values):
            pass
        janus__.if_stmt(1, janus__.call(2, janus__.ld_attr(janus__.ld_global('tf', tf), 'reduce_sum'), total) > 0, janus__if_true_4, janus__if_false_5, janus__get_6, janus__set_7, ())
        return total
    return step
'''


def test_converted_code_is_readable_and_hooks_every_heap_access():
    assert convert(step).code.strip() == EXPECTED_CODE.strip()


class Holder:
    total = None


def test_guard_set_reads_as_assumptions_with_sources():
    holder = Holder()
    holder.total = tf.zeros([2])
    jitted = janus.jit(step, profile_calls=1)
    xs = [tf.ones([2]), tf.ones([2])]
    for _ in range(3):
        jitted(holder, xs)
    spec = jitted.specializations[0]
    lines = [line.split("  [")[0] for line in spec.guards.describe()]
    assert lines[:6] == [
        "the call passes 2 positional argument(s) and no keywords",
        "type(args[0]) is Holder",
        "type(args[1]) is list",
        "len(args[1]) == 2",
        "args[1][0] is a float32[2] tensor",
        "args[1][1] is a float32[2] tensor",
    ]
    assert "args[0].total is a float32[2] tensor" in lines
    assert "G['SCALE'] == 2.0" in lines
    assert [g.describe().split("  [")[0] for g in spec.in_graph] == ["if `tf.reduce_sum(total) > 0` is True"]
    assert spec.guards.check((holder, xs), {}) == -1
    assert spec.guards.check((holder, xs[:1]), {}) == 3
    assert spec.guards.check((holder, xs, 1.0), {}) == 0  # one more argument: the call
