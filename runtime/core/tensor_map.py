"""`TensorMap`: the graph library's maps keyed by Tensor *identity* (captures, codegen
names). A Tensor is unhashable - a hash would be of the object, not of the value NumPy
would hash, so user sets and dict keys of symbolic values raise - and the library keys
its own bookkeeping by `id()` here instead."""
from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Iterator


class TensorMap(MutableMapping):
    """A dict whose keys compare by identity (`is`), in insertion order."""

    __slots__ = ("_items",)

    def __init__(self, items: Any = ()) -> None:
        self._items: dict[int, tuple[Any, Any]] = {}  # id(key) -> (key, value): keeps key alive
        for k, v in (items.items() if hasattr(items, "items") else items):
            self[k] = v

    def __getitem__(self, key):
        return self._items[id(key)][1]

    def __setitem__(self, key, value) -> None:
        self._items[id(key)] = (key, value)

    def __delitem__(self, key) -> None:
        del self._items[id(key)]

    def __contains__(self, key) -> bool:
        return id(key) in self._items

    def get(self, key, default=None):
        item = self._items.get(id(key))
        return default if item is None else item[1]

    def __iter__(self) -> Iterator:
        return (k for k, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def copy(self) -> TensorMap:
        new = TensorMap()
        new._items = dict(self._items)
        return new

    def __repr__(self) -> str:
        return "TensorMap({" + ", ".join(f"{k!r}: {v!r}" for k, v in self._items.values()) + "})"
