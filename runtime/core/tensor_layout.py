"""What a symbolic array answers about its memory layout: `x.flat` reads (C order, as
NumPy's flatiter gives them) and `x.strides`, which runtime/ops/strided.py answers where
the graph knows the layout (`LayoutHooks.strides`) and refuses clearly elsewhere."""
from __future__ import annotations

import numpy as np

from runtime.core.errors import where


class LayoutHooks:
    """Filled by runtime/ops/strided.py when it loads (it sits above this layer)."""

    strides = None  # (x) -> tuple of Python ints or int64 scalars, or AttributeError


def strides(x):
    if LayoutHooks.strides is None:
        # (an AttributeError, so `getattr(x, "strides", None)` still reads as absent)
        raise AttributeError(f"x.strides of a symbolic array{where()}: the ops are not loaded")
    return LayoutHooks.strides(x)


class FlatReader:
    """`x.flat` of a symbolic array: reads and iteration in C order, as NumPy's flatiter
    gives them (`x.flat[i]` is `np.ravel(x)[i]`); a write through it is refused."""

    __slots__ = ("_x",)

    def __init__(self, x):
        self._x = x

    def __getitem__(self, index):
        return np.ravel(self._x)[index]

    def __len__(self):
        return len(np.ravel(self._x))

    def __iter__(self):
        return iter(np.ravel(self._x))

    def __setitem__(self, index, value):
        raise TypeError(f"x.flat[i] = v on a symbolic array{where()}: write by position "
                        "instead, `x[np.unravel_index(i, x.shape)] = v`.")
