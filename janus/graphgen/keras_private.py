"""Keras' private state that its public API sets and its own code reads when called.

    layer.dtype_policy = "mixed_float16"          sets `layer._dtype_policy` (or an entry
                                                  of a model's DTypePolicyMap, in place)
    opt.exclude_from_weight_decay(var_names=...)  sets `_exclude_from_weight_decay_pattern`
                                                  and resets its cache

Keras reads these inside `__call__`/`apply_gradients` (the compute dtype a layer casts
to, the variables AdamW decays), which janus traces as they are: a graph holds what its
trace read. They are settings of the layer or optimizer (keras_settings.settings: by
identity, and a layer's compute/variable dtypes and quantization mode by value), and the
public setters and methods that change them move the Keras epoch (`install`), so the
next call's guard reads the settings again.
"""
from __future__ import annotations

import functools

PRIVATE_READ = frozenset({
    "_dtype_policy", "_input_spec", "_supports_masking",  # (Layer's property setters)
    "_exclude_from_weight_decay", "_exclude_from_weight_decay_pattern",
    "_exclude_from_weight_decay_cache"})  # (BaseOptimizer.exclude_from_weight_decay)
"""Private attributes Keras' public API sets and Keras' own code reads when called."""

_LAYER_SETTERS = ("dtype_policy", "input_spec", "supports_masking")
_OPTIMIZER_METHODS = ("exclude_from_weight_decay",)


def derived(obj) -> list:
    """A layer's dtypes as its policy gives them (a DTypePolicyMap changes in place)."""
    if "_dtype_policy" not in getattr(obj, "__dict__", {}):
        return []
    try:
        return [("compute_dtype", obj.compute_dtype), ("variable_dtype", obj.variable_dtype),
                ("quantization_mode", obj.quantization_mode)]
    except Exception:  # noqa: BLE001 - (a policy map without this layer's path yet)
        return []


def _counted_setter(prop: property, bump) -> property:
    setter = prop.fset

    @functools.wraps(setter)
    def set_counted(self, value):
        try:
            setter(self, value)
        finally:
            bump()

    return property(prop.fget, set_counted, prop.fdel, prop.__doc__)


def counted_method(method, bump):
    """`method` calling `bump` after it ran (also where it raised)."""
    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        finally:
            bump()

    return counted


def install(bump) -> None:
    """Make Keras' setters and methods of `PRIVATE_READ` state call `bump` (once)."""
    from keras.src.layers.layer import Layer
    from keras.src.optimizers.base_optimizer import BaseOptimizer
    for name in _LAYER_SETTERS:
        prop = Layer.__dict__.get(name)
        if isinstance(prop, property) and prop.fset is not None:
            setattr(Layer, name, _counted_setter(prop, bump))
    for name in _OPTIMIZER_METHODS:
        method = BaseOptimizer.__dict__.get(name)
        if method is not None:
            setattr(BaseOptimizer, name, counted_method(method, bump))
