"""What a symbolic array answers about its memory layout: `x.flat` reads (C order, as
NumPy's flatiter gives them) and a clear error for `x.strides`, which a graph value does
not have while tracing (NumPy's strides depend on how the array was made)."""
from __future__ import annotations

import numpy as np

from runtime.core.errors import where


def no_strides(x):
    # (an AttributeError, so `getattr(x, "strides", None)` still reads as absent)
    raise AttributeError(
        f"x.strides of a symbolic array{where()}: a graph value has no memory layout while "
        "tracing (NumPy's strides depend on how the array was made). Index, reshape or "
        "np.lib.stride_tricks.sliding_window_view it instead, or compute the strides "
        "outside the function.")


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
