"""Generator rules (session 34, after v86) for code janus runs unconverted that reads its
arguments, and for functions handed to code that only compares or keeps them (F398,
F399).

`singledispatch_argument` calls a `functools.singledispatch` function on a heap object
whose attribute a call changes (under a Python test) or which a call replaces by one of
another class: the implementation runs unconverted, once, while janus traces; before
F398 its read of `opt.lr` was folded into the graph, unguarded. `hooks_find_themselves`
runs closures held in a registry list that look themselves up (`reg.index(hook)`),
remove themselves (one-shot hooks), or are kept and hashed: before F399 janus handed
`list.index` its wrapper of the closure (ValueError: not in list) and gave up on the
function. F397 (what janus keeps of a failed trace kept the call's objects alive) is
not the fuzzer's: it compares no object's lifetime (tests/test_errors.py does).

Registered in `rules.RULES` on import (the generator imports this module).
"""
from __future__ import annotations

from tests.fuzz.rules import rule
from tests.fuzz.rules_more9 import _helper

_DISPATCH = '''\
class SdOpt:
    def __init__(self, lr):
        self.lr = lr


class SdScaled(SdOpt):
    pass


class SdHolder:
    def __init__(self):
        self.opt = SdOpt(0.5)
        self.others = [SdOpt(0.25), SdScaled(1.5), {"lr": 0.75}, None]


@functools.singledispatch
def sd_lr(opt):
    return 0.125


@sd_lr.register
def _(opt: SdOpt):
    return opt.lr


@sd_lr.register
def _(opt: SdScaled):
    return opt.lr * 2.0


@sd_lr.register
def _(opt: dict):
    return opt["lr"]


SD = SdHolder()
'''

_DISPATCH_SETS = [
    "SD.opt.lr = 0.25 * (n % 3) if isinstance(SD.opt, SdOpt) else 0.5",
    "SD.opt = SD.others[n % 4]",
    "SD.others[2]['lr'] = float(n % 3)",
    "SD.opt = SdOpt(0.5 + n % 2)",
]
_DISPATCH_USES = [
    "acc = acc * sd_lr(SD.opt)",
    "acc = acc + tf.cast(sd_lr(SD.opt), acc.dtype)",
]

_HOOKS = '''\
def hk_make(k):
    def hook(reg, y):
        return y * k, reg.index(hook)
    return hook


def hk_once(k):
    def once(reg, y):
        reg.remove(once)
        return y + k
    return once


def hk_keep(k):
    def keeper(kept, y):
        kept.append(keeper)
        found = {keeper: 1}.pop(keeper) + (kept[-1] is keeper) + kept.count(keeper)
        kept.pop()
        return y * k + found
    return keeper


class HkRegistry:
    def __init__(self):
        self.hooks = [hk_make(2.0), hk_make(0.5)]
        self.onces = [hk_once(1.0), hk_once(-0.5)]
        self.live = []
        self.kept = []
        self.keepers = [hk_keep(0.5)]


HK = HkRegistry()
'''

_HOOK_USES = [
    ["for h in HK.hooks:", "    acc, p = h(HK.hooks, acc)", "    acc = acc + float(p)"],
    ["HK.live = list(HK.onces)", "for h in list(HK.live):", "    acc = h(HK.live, acc)"],
    ["for h in HK.keepers:", "    acc = h(HK.kept, acc)"],
    ["acc = acc + float(len(HK.live))"],
]
_HOOK_SETS = [
    "HK.hooks.reverse()",
    "HK.hooks = HK.hooks[:3] + [hk_make(1.0 + n % 2)]",
    "HK.hooks = HK.hooks[:2]",
    "HK.live = HK.live[-2:] + [HK.onces[n % 2]]",
]


@rule(0.5, max_depth=2)
def singledispatch_argument(g):
    """(F398) A singledispatch implementation reading its argument's attribute or item,
    the argument changed or replaced by a call (under a test: some calls)."""
    _helper(g, _DISPATCH)
    change, use = g.choice(_DISPATCH_SETS), g.choice(_DISPATCH_USES)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", use],
        [use, f"if {g.pcond()}:", f"    {change}"],
        [use],
    ])


@rule(0.5, max_depth=2)
def hooks_find_themselves(g):
    """(F399) Closures held in a registry that look themselves up, remove themselves or
    are kept and hashed; the registry changed by a call (under a test)."""
    _helper(g, _HOOKS)
    use = g.choice(_HOOK_USES)
    change = g.choice(_HOOK_SETS)
    return g.choice([
        [f"if {g.pcond()}:", f"    {change}", *use],
        [*use, f"if {g.pcond()}:", f"    {change}"],
        use,
    ])
