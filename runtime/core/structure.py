"""Nested structures (tuples, lists, dicts, namedtuples) flattened to leaves and back."""
from __future__ import annotations

from typing import Any

LEAF = None


def flatten(obj) -> tuple[list, Any]:
    leaves: list = []
    return leaves, _flatten(obj, leaves)


def _flatten(obj, leaves):
    t = type(obj)
    if t is tuple or t is list:
        return (t, tuple(_flatten(x, leaves) for x in obj))
    if t is dict:
        keys = tuple(obj)
        return (dict, keys, tuple(_flatten(obj[k], leaves) for k in keys))
    if issubclass(t, tuple) and hasattr(obj, "_fields"):  # (the type: no `__class__` read)
        return (t, tuple(_flatten(x, leaves) for x in obj))
    leaves.append(obj)
    return LEAF


def unflatten(treedef, leaves) -> Any:
    it = iter(leaves)
    return _unflatten(treedef, it)


def _unflatten(treedef, it):
    if treedef is LEAF:
        return next(it)
    t = treedef[0]
    if t is dict:
        return {k: _unflatten(sub, it) for k, sub in zip(treedef[1], treedef[2])}
    items = [_unflatten(sub, it) for sub in treedef[1]]
    if t is tuple or t is list:
        return t(items)
    return t(*items)  # namedtuple


def path_names(obj, prefix: str) -> list[str]:
    """A readable name per leaf: prefix[0]['key'] ..."""
    names: list[str] = []

    def walk(o, p):
        t = type(o)
        if t is dict:
            for k in o:
                walk(o[k], f"{p}[{k!r}]")
        elif isinstance(o, (tuple, list)):
            for i, x in enumerate(o):
                walk(x, f"{p}[{i}]")
        else:
            names.append(p)

    walk(obj, prefix)
    return names
