"""Run-time shapes: `shape_of(x)` when a static dimension is unknown (None)."""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.ops.registry import OpDef, bind
from runtime.tensor import Tensor


def _shape_kernel(x):
    return np.array(np.shape(x), dtype=np.int64)


SHAPE_OF = OpDef("shape_of", _shape_kernel,
                 lambda op, ins, attrs: [((len(ins[0].shape),), np.dtype(np.int64))])


def shape_of(x: Any) -> Any:
    """The shape of `x` as an int64 vector (a graph value when `x` is symbolic)."""
    if isinstance(x, Tensor):
        if None not in x.shape:
            return np.array(x.shape, dtype=np.int64)
        return bind(SHAPE_OF, x)
    return _shape_kernel(x)
