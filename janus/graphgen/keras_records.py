"""Keras reads a graph recorded in the graph cache, found again in another process.

    export(reads)  ->  {"owners": [<source>, ...], "reads": [[owner, what, description]]}
    reload(owners, rows)  ->  KerasReads for this process's objects, or None

A read is described by what another process can compare without the objects: a flag, a
setting's value (a function or a held object by its class's name), a variable by its
position, dtype and shape, a layer by its position and class (graphgen/keras_state.py
makes the reads; cache/portable.py stores them).
"""
from __future__ import annotations

import tensorflow as tf

from janus.graphgen.keras_settings import SETTING_TYPES, Settings
from janus.graphgen.keras_state import CALLED, EPOCH, SETTINGS, KerasReads, install, read


def _description(owner, value):
    """`value` read from `owner`, as JSON another process can compare: a flag as it is, a
    list item by item (a variable's position in `owner.variables`, dtype and shape; a
    layer's position among owner's layers and class; a flag)."""
    if type(value) is bool:
        return value
    if type(value) is Settings:  # (a function by its name)
        return ["settings", [[k, v if type(v) in SETTING_TYPES else _named(v)]
                             for k, v in value]]
    variables = {id(v): k for k, v in enumerate(getattr(owner, "variables", ()) or ())}
    layers = {id(layer): k for k, layer in enumerate(
        owner._flatten_layers(include_self=True))} if hasattr(owner, "_flatten_layers") else {}
    items = []
    for item in value:
        if type(item) is bool:
            items.append(item)
        elif hasattr(item, "_flatten_layers"):
            kind = type(item)
            items.append(["layer", layers.get(id(item), -1),
                          f"{kind.__module__}:{kind.__qualname__}"])
        else:
            items.append(["variable", variables.get(id(item), -1), tf.as_dtype(
                item.dtype).name, [None if d is None else int(d) for d in item.shape]])
    return items


def _named(value) -> str:
    """A function by its name, another object (a regularizer) by its class's."""
    named = value if hasattr(value, "__qualname__") else type(value)
    return f"{getattr(named, '__module__', '')}:{getattr(named, '__qualname__', '')}"


def export(reads: KerasReads):
    """The reads as JSON (`{"owners": [source, ...], "reads": [[owner, what, description],
    ...]}`), or None when another process could not find them again (a read of an object
    janus does not locate, or made under the call's own writes)."""
    owners = {id(obj): k for k, (_, obj) in enumerate(reads.owners)}
    if any(s.is_process_local for s, _ in reads.owners):
        return None
    rows = []
    for obj, what, value, writes in reads.reads:
        if writes or id(obj) not in owners:
            return None
        rows.append([owners[id(obj)], what, _description(obj, value)])
    return {"owners": [s.to_json() for s, _ in reads.owners], "reads": rows}


def reload(owners: list, rows: list):
    """KerasReads of a recorded graph for this process's objects (`owners`: the located
    objects, by their recorded order), or None if a read here is not the recorded one."""
    install()
    reads = KerasReads(EPOCH.n)
    reads.owners = list(owners)
    for index, what, description in rows:
        obj = owners[index][1]
        value = read(obj, what)
        if _description(obj, value) != description:
            return None
        reads.reads.append((obj, what, value, ()))
    return reads


def is_what(what) -> bool:
    """A recorded read's `what`: CALLED or a public attribute name."""
    from janus.graphgen.sources import is_name
    return what in (CALLED, SETTINGS) or is_name(what) and not what.startswith("_")
