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


def _layout(node) -> str:
    """The kernel's copy is C-ordered: laid out as eagerly when the array made while
    tracing was (`np.arange(6)`, not `np.zeros((2, 3), order="F")`)."""
    out = node.outputs[0]
    return "C" if id(node) in out.graph.__dict__.get("c_ordered_constants", ()) else ""


CONSTANT.layout = _layout


def constant(value: Any, dtype: Any = None) -> Tensor:
    """A graph value holding `value` (cast to `dtype` when given)."""
    value = np.asarray(value, dtype=dtype)
    out = add_node(tracing.current_graph(), CONSTANT, [], {"value": value})
    if value.flags.c_contiguous:  # (the node's own value is a C-ordered copy: see _layout)
        out.graph.__dict__.setdefault("c_ordered_constants", set()).add(id(out.node))
    return out
