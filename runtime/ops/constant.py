"""`constant`: a graph value holding a NumPy array or number fixed at trace time."""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core import tracing
from runtime.core.registry import OpDef, add_node
from runtime.core.tensor import Tensor


def _constant_kernel(*, value):
    return value.copy() if isinstance(value, np.ndarray) else value  # callers may write to it


CONSTANT = OpDef("constant", _constant_kernel,
                 lambda op, ins, attrs: [(np.shape(attrs["value"]), np.asarray(attrs["value"]).dtype)],
                 fresh_result=True)


def constant(value: Any, dtype: Any = None) -> Tensor:
    """A graph value holding `value` (cast to `dtype` when given)."""
    value = np.asarray(value, dtype=dtype)
    return add_node(tracing.current_graph(), CONSTANT, [], {"value": value})
