"""`locals()`, `vars()` and `dir()` read the converted frame: they show the user's names
only (transform/effects.py `user_frame`, F186, the probes' round: janus's runtime
`janus__` was among them). And a `while` test binding a name (`while (m := f()) < 10:`)
keeps it in the function (transform/control_flow.py: the test is not moved into a
closure, where the walrus bound it; reading it after the loop was janus's NameError).
Each test compares janus with plain Python call by call."""
import tensorflow as tf

from tests.differential import assert_same


def frame_names(x, k):
    a = x * k
    return sorted(locals().keys()), sorted(vars()), dir()


def test_locals_vars_and_dir_show_the_user_s_names_only():
    assert_same(frame_names, [(tf.constant(2.0), i) for i in range(4)])


def walrus_test(x, limit):
    n = 0
    while (m := n * n) < limit:
        n += 1
    return x + m, n


def test_a_name_a_while_test_binds_is_the_function_s():
    assert_same(walrus_test, [(tf.constant(1.0), v) for v in (10, 10, 3, 30, 10)])


# -- F231: frame introspection and the records that name their caller's frame ----------
import inspect  # noqa: E402
import logging  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

import janus  # noqa: E402

LR = 0.1


def own_frame(x):
    print("in", sys._getframe().f_code.co_name, inspect.stack()[0].function,
          inspect.currentframe().f_code.co_name)
    return x * inspect.currentframe().f_globals["LR"]


def test_a_function_reading_its_frame_sees_its_own():
    # (converted, its frame was janus's call hook: `call`, and f_globals had no `LR`)
    assert_same(own_frame, [(tf.constant(float(i)),) for i in range(5)])


def frame_helper():
    return sys._getframe().f_code.co_name


def calls_frame_helper(x):
    print(frame_helper())
    return x * 2.0


def test_a_callee_reading_its_frame_sees_its_own():
    stats = assert_same(calls_frame_helper, [(tf.constant(float(i)),) for i in range(5)])
    assert stats.calls == 5


class Logged:
    """A logger of its own whose records (function, line) the heap snapshot compares."""
    count = 0

    def __init__(self):
        Logged.count += 1
        self.records = []
        log = logging.getLogger(f"tests.frame_reads.{Logged.count}")
        self.info, self.warning, self.log = log.info, log.warning, log.log  # (same snapshots)
        log.propagate = False
        log.setLevel(logging.INFO)
        records = self.records

        class Keep(logging.Handler):
            def emit(self, record):
                records.append((record.funcName, record.lineno, record.module,
                                record.getMessage()))
        log.addHandler(Keep())


def logs_in_blocks(state, x, n):
    state.info("step %d", n)
    if n > 1:
        state.warning("big %d", n)
    for i in range(2):
        state.log(logging.INFO, "loop %d", i)
    logging.getLogger("tests.frame_reads.unseen").debug("below its level")
    return x * 2.0


def test_a_logging_record_names_the_user_s_function_and_line():
    assert_same(logs_in_blocks, [(tf.constant(1.0), i) for i in range(5)], Logged)


def warns(x, n):
    warnings.warn(f"w{n}", UserWarning)
    if n > 1:
        warnings.warn(f"big{n}", UserWarning, stacklevel=1)
    return x * 2.0


def test_a_warning_is_attributed_to_the_user_s_line():
    jitted = janus.jit(warns)
    for n in range(5):
        shown = []
        for fn in (warns, jitted):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fn(tf.constant(1.0), n)
            shown.append([(w.filename, w.lineno, str(w.message)) for w in caught
                          if w.category is UserWarning])
        assert shown[0] == shown[1], n


import inspect as _insp  # noqa: E402


def aliased_stack(x):
    return x * 2.0, _insp.stack()[0].function


def test_a_frame_read_through_a_module_alias_sees_its_own_frame():
    # (fuzz v74, seed 2810027: `_inspect.stack()` was converted, its frame janus's)
    assert_same(aliased_stack, [(tf.constant(float(i)),) for i in range(4)])


# -- absl's logging finds its caller itself (ABSLLogger.findCaller): its records and the
# counters of `log_every_n`/`log_first_n` (keyed by the caller's file and line) (F317)

from absl import logging as absl_logging  # noqa: E402


class AbslLogged:
    """A variable the step reads with .numpy() (janus splits the step there) and the
    records absl's logger made during this side's calls."""

    def __init__(self):
        self.v = tf.Variable(0.0)
        self.records = []
        self.counters = {}  # (absl's counters per call site: one per side)


def _absl_side(fn):
    """`fn(state, ...)` with absl's counters the state's and its records kept in it."""
    def run(state, *args):
        class Keep(logging.Handler):
            def emit(self, record):
                state.records.append((record.funcName, record.lineno, record.module,
                                      record.getMessage()))
        keep, absl_logger = Keep(), absl_logging.get_absl_logger()
        saved = absl_logging._log_counter_per_token
        absl_logging._log_counter_per_token = state.counters
        absl_logger.addHandler(keep)
        try:
            return fn(state, *args)
        finally:
            absl_logger.removeHandler(keep)
            absl_logging._log_counter_per_token = saved
    return run


def absl_logs(state, x):
    state.v.assign_add(x)
    val = state.v.numpy()
    absl_logging.log_every_n(absl_logging.WARNING, "every2 %.1f", 2, val)
    absl_logging.log_every_n(absl_logging.WARNING, "every3 %.1f", 3, val)
    absl_logging.log_first_n(absl_logging.WARNING, "first1 %.1f", 1, val)
    if val > 2:
        absl_logging.log_if(absl_logging.WARNING, "big %.1f", val > 4, val)
        absl_logging.warning("warning %.1f", val)
    for i in range(2):
        absl_logging.log_every_n(absl_logging.WARNING, "loop %d", 3, i)
    absl_logging.get_absl_logger().warning("logger %.1f", val)
    return val * 2.0


def test_absl_logging_names_the_user_s_line_and_counts_per_line():
    jitted = janus.jit(absl_logs)
    assert_same(_absl_side(absl_logs), [(tf.constant(1.0),) for _ in range(10)],
                AbslLogged, jitted=_absl_side(jitted), stats_of=jitted)


def absl_logs_in_a_graph(state, x):
    y = x * 2.0
    absl_logging.log_if(absl_logging.WARNING, "if %s", state.records is not None, 1)
    absl_logging.log_every_n(absl_logging.WARNING, "every2", 2)
    if len(state.records) < 4:
        absl_logging.warning("few")
    return y + 1.0


def test_absl_logging_in_a_step_janus_traces_logs_on_every_call():
    # (absl's functions were traced: a record made while tracing, none when the graph ran)
    jitted = janus.jit(absl_logs_in_a_graph)
    assert_same(_absl_side(absl_logs_in_a_graph), [(tf.constant(float(i)),) for i in range(8)],
                AbslLogged, jitted=_absl_side(jitted), stats_of=jitted)
