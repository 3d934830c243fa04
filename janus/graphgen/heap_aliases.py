"""Which heap objects a graph assumes are one object, or distinct ones.

A trace works on one copy per heap list or dict and one record per object, whatever path
reached it. Where two paths reached one object, a write through one is read through the
other; where the call wrote an object and read another of its type, the graph holds the
write unseen by that other one. Either is an assumption about identity the next call may
break (F183: an argument that was the global dict the function reads on one call, a
copy of it on another), so those objects join the trace's "aliases" guard:

    d["w"] = d["w"] + x        args[0] and G['D'] read, args[0] written: the guard holds
    return D["w"]              where `args[0] is G['D']` is as the trace saw it

So do the objects whose identity the trace observed (`node is LAST[0]`, a key of the
call's own dict: graphgen/heap_identity.py, `tracer.identity_reads`), and the objects of
a class without its own `__eq__` and `__hash__`, whose identity code the hooks do not see
may observe (`a == b`, `x in [a, b]`, `xs.index(a)`, `{a, b}`: F355), each with the
others of its type the trace read.

`note` records each path a trace reads an object through; `objects` gives the
(sources, spec) entries graphgen/guards.aliases_guard takes.
"""
from __future__ import annotations

from janus.graphgen import heap_identity


def note(tracer, value, source) -> None:
    """`value` (a heap list, dict or object) was read through `source`."""
    read = tracer.heap_objects.get(id(value))
    if read is None:
        tracer.heap_objects[id(value)] = (value, [source])
    elif all(s.expr != source.expr for s in read[1]):
        read[1].append(source)


def objects(tracer) -> list:
    """[(sources, spec)] of the heap objects whose identity the graph assumes: each read
    through two paths, and each the call wrote or whose identity it observed with the
    others of its type it read (`{n: i for n in kids}`, hashed past the hooks)."""
    ledger = tracer.ledger
    written = {oid for oid, (copy, _) in ledger.copies.items() if id(copy) in ledger.dirty}
    written |= {id(obj) for obj, _, _ in ledger.attrs.values()}
    by_type: dict = {}
    for oid, (value, _) in tracer.heap_objects.items():
        by_type.setdefault(type(value), []).append(oid)
    kept = set()
    for oid, (value, sources) in tracer.heap_objects.items():
        if len(sources) > 1:
            kept.add(oid)
        if (oid in written or oid in tracer.identity_reads or
                heap_identity.compared_past_hooks(value)) and len(by_type[type(value)]) > 1:
            kept.update(by_type[type(value)])
    return [(tracer.heap_objects[oid][1], (f"object {id(type(tracer.heap_objects[oid][0]))}",
                                           ())) for oid in sorted(kept)]
