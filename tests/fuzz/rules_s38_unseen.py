"""Generator rules (session 38) for what researchers' training scripts do that the suite's
programs did not (tests/e2e/unseen/): a tensor's value read where it stands and only
stored, returned, printed or formatted (F456: `s.hist.append(float(loss))`, `{"loss":
loss.numpy()}`, `f"{loss.numpy():.4f}"`, F460: `loss.numpy().item()`; once a graph
break, now kept in the graph), and
logging every N steps with a step counter and two periodic tests (F455: a print every
2nd step, a history append every 3rd), and a read tested or rounded with `math` (F459:
`if math.isnan(float(loss)): raise ...`, `math.floor(v)`).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule

_SCALARS = ["tf.reduce_sum(acc)", "tf.reduce_mean(tf.cast(acc, tf.float32))",
            "tf.reduce_max(acc)", "tf.argmax(tf.reshape(acc, [-1]))", "s.h"]


@rule(0.6, max_depth=2)
def stored_reads(g):
    """(F456) A scalar's value read with float()/int()/.numpy() where it stands and only
    appended, stored in an attribute or a dict, returned in a literal or formatted into
    a printed line; now and then a vector's `.numpy()` (still a break)."""
    t = g.choice(_SCALARS)
    read = g.choice([f"float({t})", f"{t}.numpy()", f"int(tf.cast({t}, tf.int32))",
                     f"bool({t} > 0)", f"{t}.numpy().item()"])
    use = g.choice([
        f"s.hist.append({read})",
        f"s.d['last'] = {read}",
        f"s.total = float({t})",
        f"out.append({{'v': {read}, 'k': k}})",
        f"out.append(({read}, k))",
        f"print(f'value {{{t}.numpy():.3f}} at {{k}}')",
        f"print('value', {read})",
        "s.hist.append(acc.numpy())",
    ])
    return g.choice([[use], [f"if {g.pcond()}:", f"    {use}"]])


@rule(0.4, max_depth=1)
def periodic_logs(g):
    """(F455) A step counter and two periodic tests on it: a print every 2nd call, an
    append (or a reset) every 3rd, as a training loop logs and resets its metrics."""
    return [
        "s.count += 1",
        "if s.count % 2 == 0:",
        f"    print(f'step {{s.count}}: {{float(tf.reduce_sum(acc)):.3f}}')",
        "if s.count % 3 == 0:",
        g.choice(["    s.hist.append(float(tf.reduce_mean(tf.cast(acc, tf.float32))))",
                  "    s.total = 0.0", "    s.h = s.h * 0.0"]),
    ]


@rule(0.4, max_depth=2)
def math_of_reads(g):
    """(F459) A scalar read as a Python float, tested with math.isnan/isinf/isfinite (a
    raise on NaN) and rounded with math.floor/ceil (OverflowError on inf, as Python)."""
    t = g.choice(_SCALARS[:3])
    v = g.fresh("v")
    test = g.choice([f"math.isnan({v})", f"math.isinf({v})", f"not math.isfinite({v})"])
    use = g.choice([f"k = k + math.floor({v})", f"k = k + math.ceil({v} * 0.5)",
                    f"s.total = 0.5 * s.total + {v}", f"out.append({v} * 2.0)"])
    return [f"{v} = float({t})",
            f"if {test}:",
            g.choice([f"    raise FloatingPointError('bad value')", "    k = k + 1"]),
            use]
