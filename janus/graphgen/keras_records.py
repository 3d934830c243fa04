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

from janus import user_attributes
from janus.graphgen.keras_contents import held_items, setting_key
from janus.graphgen.keras_settings import SETTING_TYPES, Settings
from janus.graphgen import global_settings
from janus.graphgen.keras_epoch import EPOCH, install
from janus.graphgen.keras_state import CALLED, SETTINGS, KerasReads, read


def _description(owner, value):
    """`value` read from `owner`, as JSON another process can compare: a flag as it is, a
    list item by item (a variable's position in `owner.variables`, dtype and shape; a
    layer's position among owner's layers and class; a flag)."""
    if type(value) is bool:
        return value
    if type(value) is Settings:  # (a function by its name)
        return ["settings", [[k, v if type(v) in SETTING_TYPES else _named(v)]
                             for k, v in value]]
    variables = {id(v): k for k, v in enumerate(user_attributes.get(owner, "variables", ())
                                                 or ())}
    layers = {id(layer): k for k, layer in enumerate(
        owner._flatten_layers(include_self=True))} \
        if user_attributes.has(owner, "_flatten_layers") else {}
    items = []
    for item in value:
        if type(item) is bool:
            items.append(item)
        elif user_attributes.has(item, "_flatten_layers"):
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
    containers = _containers(reads, owners)
    if containers is None:
        return None
    settings = []
    for reader, (kind, value) in reads.settings:  # (`keras.backend.epsilon()`...)
        name = global_settings.portable_name(reader)
        if name is None or type(value) not in SETTING_TYPES:
            return None
        settings.append([name, kind.__name__, value])
    if any(s.is_process_local for s, _ in reads.owners):
        return None
    rows = []
    for obj, what, value, writes in reads.reads:
        if writes or id(obj) not in owners:
            return None
        rows.append([owners[id(obj)], what, _description(obj, value)])
    return {"owners": [s.to_json() for s, _ in reads.owners], "reads": rows,
            "settings": settings, "containers": containers}


def _plain_items(items: tuple):
    """A held list's or dict's items as JSON ([[key, value], ...] for a dict), or None."""
    flat = [x for item in items for x in (item if type(item) is tuple else (item,))]
    if not all(type(x) in SETTING_TYPES for x in flat):
        return None
    return [list(item) if type(item) is tuple else item for item in items]


def _containers(reads: KerasReads, owners: dict):
    """The lists and dicts held by settings the trace read (F230: compared item by item on
    every call) as [owner, what, setting name, items], or None where one is not found
    again by its owner's setting or holds other than numbers and text."""
    found = {}
    for obj, what, value, _ in reads.reads:
        if type(value) is Settings and id(obj) in owners:
            for name, held in value:
                if isinstance(held, (list, dict)):
                    found.setdefault(id(held), (owners[id(obj)], what, name))
    rows = []
    for held, items in reads.containers:
        where, plain = found.get(id(held)), _plain_items(items)
        if where is None or plain is None:
            return None
        rows.append([*where, plain])
    return rows


def is_container(row) -> bool:
    """A recorded held list's or dict's items: [owner, what, setting name, items]."""
    return isinstance(row, list) and len(row) == 4 and type(row[0]) is int and \
        type(row[1]) is str and type(row[2]) is str and isinstance(row[3], list)


def is_setting(row) -> bool:
    """A recorded library-wide setting: [getter name, type name, value]."""
    return isinstance(row, list) and len(row) == 3 and type(row[0]) is str and \
        type(row[1]) is str and type(row[2]) in SETTING_TYPES


def reload(owners: list, rows: list, settings: list = (), containers: list = ()):
    """KerasReads of a recorded graph for this process's objects (`owners`: the located
    objects, by their recorded order), or None if a read here is not the recorded one."""
    install()
    reads = KerasReads(EPOCH.n)
    reads.owners = list(owners)
    for name, kind, value in settings:
        getter = global_settings.portable_getter(name)
        if getter is None:
            return None
        key = setting_key(getter())
        if [key[0].__name__, key[1]] != [kind, value]:
            return None
        reads.settings.append((getter, key))
    for index, what, description in rows:
        obj = owners[index][1]
        value = read(obj, what)
        if _description(obj, value) != description:
            return None
        reads.reads.append((obj, what, value, ()))
    for index, what, name, items in containers:  # (F230: checked per call again)
        held = _held(reads, owners[index][1], what, name) if 0 <= index < len(owners) else None
        if held is None or _plain_items(held_items(held)) != items:
            return None
        reads.containers.append((held, held_items(held)))
    return reads


def _held(reads: KerasReads, obj, what: str, name: str):
    for owner, read_what, value, _ in reads.reads:
        if owner is obj and read_what == what and type(value) is Settings:
            held = dict(value).get(name)
            if isinstance(held, (list, dict)):
                return held
    return None


def is_what(what) -> bool:
    """A recorded read's `what`: CALLED or a public attribute name."""
    from janus.graphgen.sources import is_name
    return what in (CALLED, SETTINGS) or is_name(what) and not what.startswith("_")
