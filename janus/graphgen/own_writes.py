"""What a trace's own library calls wrote to the heap, told from another thread's (F433).

    tf.nest.map_structure(lg.log, n)   a library call of the trace: `lg.history[3] = n`
    (a heartbeat thread, meanwhile)    `lg.history['beat'] = ...`, `lg.beats.append(b)`
    np.asarray(loss)                   the trace fails: the call runs plainly

A trace that fails puts back what it changed in the state it reached
(graphgen/leftover_tensors.py), so that the plain rerun makes its changes once. When
another thread ran meanwhile, a change may be that thread's, and putting the snapshot
back would lose it (F372): only the holders keeping a tensor of the trace were put
back, and the trace's own plain writes stayed (the rerun made them again: F433).

`Writes` looks at that state around each library call the trace makes on its own
thread, when other threads exist: a change made during a call in which no other thread
ran (the call's own `other_threads.Window`) is the trace's; one made between two calls,
or during a call another thread ran in, may be the other thread's and is never undone.
The trace's changes are undone last call first, item by item, and only where the item
is still what the call left (another thread's later write to it stays):

    dict, object     each key the call set or deleted: back, if still the call's value
    list, deque      the items the call appended taken out (the rest, later appends,
                     kept); any other change: back only if nothing changed it since
    set, cell        members added / removed put back; a cell's value, if still the call's

TensorFlow's own functions handed no callable skip the look (they write no Python
state of the program's; a change seen later is taken as another thread's: kept).
"""
from __future__ import annotations

import collections
import contextlib
import types

from janus import user_attributes
from janus.graphgen import other_threads

_ABSENT = object()
ABSENT = _ABSENT
"""What a cell without contents, or a missing key, keeps (one sentinel for the watch's modules)."""


def copy_state(holder):
    """What `holder` (an object, list, dict, set, deque or cell) keeps now."""
    if isinstance(holder, types.CellType):
        try:
            return holder.cell_contents
        except ValueError:
            return _ABSENT
    if isinstance(holder, dict):
        return dict(holder.items())
    if isinstance(holder, (list, collections.deque)):
        return list(holder)
    if isinstance(holder, set):
        return set(holder)
    return dict(vars(holder))


def _same_items(a, b) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def unchanged(holder, before) -> bool:
    """Whether `holder` keeps what `before` (its `copy_state`) says, item by item."""
    now = copy_state(holder) if isinstance(holder, types.CellType) else holder
    if isinstance(holder, types.CellType):
        return now is before
    if isinstance(holder, set):
        return holder == before
    if isinstance(holder, (list, collections.deque)):
        return _same_items(holder, before)
    state = holder if isinstance(holder, dict) else vars(holder)
    return len(state) == len(before) and all(
        state.get(k, _ABSENT) is v for k, v in before.items())


def _same_state(holder, a, b) -> bool:
    """Whether two `copy_state`s of `holder` hold the same items."""
    if isinstance(holder, types.CellType):
        return a is b
    if isinstance(holder, set):
        return a == b
    if isinstance(holder, (list, collections.deque)):
        return _same_items(a, b)
    return len(a) == len(b) and all(b.get(k, _ABSENT) is v for k, v in a.items())


def _undo(holder, before, after) -> None:
    """Put back what one call changed in `holder` (`before` -> `after`), where it still
    stands."""
    if isinstance(holder, types.CellType):
        if copy_state(holder) is after and before is not _ABSENT:
            holder.cell_contents = before
    elif isinstance(holder, set):
        for member in after - before:
            holder.discard(member)
        holder.update(m for m in before - after if m not in holder)
    elif isinstance(holder, (list, collections.deque)):
        now = list(holder)
        if _same_items(now, after):
            kept = list(before)
        elif len(after) >= len(before) and _same_items(after[:len(before)], before) \
                and _same_items(now[:len(after)], after):
            kept = list(before) + now[len(after):]  # (appended since: another's)
        else:
            return  # (changed since, otherwise: whose is it? left)
        holder.clear()
        holder.extend(kept)
    else:
        state = holder if isinstance(holder, dict) else vars(holder)
        for key in [k for k in after.keys() | before.keys()
                    if after.get(k, _ABSENT) is not before.get(k, _ABSENT)]:
            if state.get(key, _ABSENT) is not after.get(key, _ABSENT):
                continue  # (written since: not the call's value any more)
            if key in before:
                state[key] = before[key]
            else:
                del state[key]


def looked_past(fn, args: tuple, kwargs: dict) -> bool:
    """A TensorFlow function handed no callable: it writes no Python state of the
    program's (a `tf.nest.map_structure(lg.log, n)` is looked at)."""
    module = user_attributes.get(fn, "__module__", None) or ""
    return module.split(".")[0] == "tensorflow" and not any(
        callable(a) for a in list(args) + list(kwargs.values()))


class Writes:
    """The changes a trace's library calls made to `holders`, call by call."""

    def __init__(self, holders: list, active: bool):
        self.seen = {id(h): (h, copy_state(h)) for h in holders} if active else None
        self.changes: list = []  # (holder, before, after), call by call
        self.depth = 0

    @contextlib.contextmanager
    def call(self, fn, args: tuple, kwargs: dict):
        """Around one library call of the trace (outermost calls only)."""
        if self.seen is None or self.depth or looked_past(fn, args, kwargs):
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        self.depth += 1
        window = None
        try:
            window = other_threads.Window()  # (first: a write from here on moves it)
            self._look(None)  # (changed since the last call: maybe another thread's)
            yield
        finally:
            self.depth -= 1
            self._look(window)

    def _look(self, window) -> None:
        """Note each holder changed since the last look; the trace's when `window`, the
        call's, saw no other thread run."""
        changed = []
        for key, (holder, before) in list(self.seen.items()):
            try:
                if not unchanged(holder, before):
                    changed.append((key, holder, before, copy_state(holder)))
            except Exception:  # noqa: BLE001 - a holder that cannot be read: not looked at
                continue
        # (copied before asking the window: a write after its look would be taken as ours)
        ours = window is not None and not window.disturbed()
        for key, holder, before, after in changed:
            if ours:
                self.changes.append((holder, before, after))
            self.seen[key] = (holder, after)

    def explains(self, holder, saved) -> bool:
        """Whether the trace's own calls made every change `holder` shows since `saved`
        (its snapshot, `copy_state`'s form): its first change starts there, each starts
        where the last ended, and it still holds what the last left."""
        mine = [(before, after) for h, before, after in self.changes if h is holder]
        if not mine:
            return False
        steps = [saved] + [state for pair in mine for state in pair] + [copy_state(holder)]
        return all(_same_state(holder, steps[i], steps[i + 1])
                   for i in range(0, len(steps), 2))

    def undo(self) -> None:
        """Put back the trace's own changes, last call first (after a failed trace)."""
        for holder, before, after in reversed(self.changes):
            try:
                _undo(holder, before, after)
            except Exception:  # noqa: BLE001 - a holder that refuses: left (as before)
                continue
        self.changes = []
