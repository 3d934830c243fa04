"""janus/operation_hooks.py: the hooks doing the user's own operation are marked by code
object, so an exception raised there is the user's whatever the hook is named."""
import os

import janus
from janus import operation_hooks
from janus.fallback import mixed, safety
from janus.graphgen import library_modes, runtime as trace_runtime
from janus.profiler import runtime as profile_runtime
from janus.recursion import limits
from janus.transform import runtime, user_frames

_JANUS_DIR = os.path.dirname(os.path.abspath(janus.__file__))


def test_every_hook_is_marked_and_every_mark_is_janus_s():
    hooks = [runtime.Runtime.ld_attr, runtime.Runtime.call, runtime.Runtime.compare_chain,
             runtime.COMPARE_OPS["in"], runtime.COMPARE_OPS["not in"], runtime.user_items,
             profile_runtime.ProfileRuntime.call, safety.EffectWatch.call,
             mixed._Mixed.call, mixed._apply_eagerly, trace_runtime.TraceRuntime.call,
             library_modes._tensor_attribute, user_frames.call, limits.plain_call,
             limits.entry_call, limits.callee_call]
    for hook in hooks:
        assert operation_hooks.is_operation_hook(hook.__code__), hook
    for code in operation_hooks.marked():
        assert code.co_filename.startswith(_JANUS_DIR), code  # (safety looks at janus's frames)


def test_a_marked_hook_of_any_name_makes_the_error_the_user_s():
    # (the hook's own frame is innermost: `int(value)` raises in it, as `getattr` in ld_attr;
    # a name that was on the old list, not marked, is janus's: no name list remains)
    path = os.path.join(_JANUS_DIR, "operation_hooks.py")
    for name, marked, janus_s in (("renamed_hook", True, False), ("renamed_hook", False, True),
                                  ("call", False, True), ("ld_attr", False, True)):
        namespace: dict = {}
        exec(compile(f"def {name}(value):\n    return int(value)\n", path, "exec"), namespace)
        hook = namespace[name]
        if marked:
            hook = operation_hooks.operation_hook(hook)
        try:
            hook("not a number")
        except ValueError as exc:
            assert safety.raised_by_janus(exc) is janus_s, (name, marked)
        else:
            raise AssertionError("did not raise")
